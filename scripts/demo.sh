#!/usr/bin/env bash
# README command one: installs what is missing, builds, and runs the whole simulated gym on its
# embedded default (scripts/gym-demo.sh): a private bus, ftms-sim with an SF-Bike and an SF-Rower
# riding bundled captures, the reference backend, and `ftms-bridge run`, watched live.
# `scripts/demo.sh --decode` runs the older, smaller demo: real frames decoded, nothing else.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
if [ "${1:-}" = "--decode" ]; then
  shift
  swift build -c release --product ftms-bridge >&2
  exec .build/release/ftms-bridge demo "$@"
fi
echo "demo: building (release; the first build takes several minutes)" >&2
for product in ftms-bridge ftms-bridged ftms-sim ftms-backend; do
  swift build -c release --product "$product" >&2
done
exec scripts/gym-demo.sh --bin .build/release "$@"
