#!/usr/bin/env bash
# Runs the ordo-one/benchmark suite in Benchmarks/ (per-record decode time and mallocs, per
# hex line to JSON line), then `ftms-bridge decode` whole-process: frames/s per characteristic
# (scripts/bench-decode.sh) and against pyftms.
#
#   scripts/bench.sh            both
#   scripts/bench.sh --micro    only the Swift benchmarks
set -euo pipefail
cd "$(dirname "$0")/.."
(cd Benchmarks && swift package --disable-sandbox benchmark --target FTMSDecoding)
[ "${1:-}" = "--micro" ] && exit 0
swift build -c release --product ftms-bridge >&2
scripts/bench-decode.sh --bin .build/release/ftms-bridge
scripts/bench-decode-vs-pyftms.sh --bin .build/release/ftms-bridge
