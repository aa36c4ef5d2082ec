#!/usr/bin/env bash
# The latency figures, whole-process, against a BlueZ peer on a private dbus-daemon:
# the D-Bus round trip (Properties.Get) and notification → `ftms-bridge monitor` output.
# Runs RUNS times (default 5) and prints each run; quote the median of the runs.
#
#   scripts/bench-bluez-latency.sh [--peer dbusmock|sim] [RUNS]
set -euo pipefail
cd "$(dirname "$0")/.."
peer=dbusmock
if [ "${1:-}" = "--peer" ]; then peer=$2; shift 2; fi
runs=${1:-5}
swift build -c release --product ftms-bridge >&2
swift build -c release --product ftms-bridged >&2   # `ftms-bridge run` execs it
[ "$peer" = sim ] && swift build -c release --product ftms-sim >&2
(cd Benchmarks && swift build -c release --product ftms-latency >&2)
for _ in $(seq "$runs"); do
  Benchmarks/.build/release/ftms-latency --peer "$peer" --bridge .build/release/ftms-bridge \
    --sim .build/release/ftms-sim --calls 5000 --frames 2000
done
