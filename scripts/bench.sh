#!/usr/bin/env bash
# Runs the ordo-one/benchmark suite in Benchmarks/ (per-record decode time and mallocs),
# then the whole-process comparison of `ftms-bridge decode` against pyftms.
#
#   scripts/bench.sh            both
#   scripts/bench.sh --micro    only the Swift benchmarks
set -euo pipefail
cd "$(dirname "$0")/.."
(cd Benchmarks && swift package --disable-sandbox benchmark --target FTMSDecoding)
[ "${1:-}" = "--micro" ] && exit 0
swift build -c release --product ftms-bridge >&2
scripts/bench-decode-vs-pyftms.sh --bin .build/release/ftms-bridge
