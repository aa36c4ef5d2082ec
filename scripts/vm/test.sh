#!/usr/bin/env bash
# The real-Bluetooth-stack step of scripts/test.sh: one guest boot (scripts/vm/run.sh) running every
# scenario against bluetoothd 5.66 on btvirt controllers, with ftms-sim --peripheral as the machines.
#
#   scripts/vm/test.sh           the CI step: bars sampled (6 cold monitor runs, two per way of ending, and
#                                4 daemon stops leaving bluetoothd whole, a CPU hog in the guest; 3 bluetoothd
#                                restarts under the daemon, 3 daemon restarts; one death of the bike's home
#                                gateway with a neighbour carrying its ride on); the recoveries a guest still
#                                misses at times (bluetoothd restarts, the ride's) reported, not failed
#   scripts/vm/test.sh --bars    the full bars: 60 cold monitor runs (20 per way of ending) and 20 daemon stops
#                                leaving bluetoothd whole under a CPU hog in the guest, 10 bluetoothd
#                                restarts, 10 daemon restarts, 3 home gateway deaths, and crash: 3 rides on a gateway with the package
#                                installed, bluetoothd killed with SIGSEGV in each (8 minutes of TCG
#                                guest, more than the CI step's budget); crash and floor under a CPU
#                                hog in the guest, as exits (a bar counts when it holds under load)
#
# Needs the debug build (swift build --build-tests, as scripts/test.sh does first); the guest image is
# built on first use into ${FTMS_BRIDGE_CACHE:-/var/cache/ftms-bridge}. Prints the summary and figures.
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
for binary in ftms-bridge ftms-sim; do
  [ -x "$repo/.build/debug/$binary" ] || { echo "vm/test: no .build/debug/$binary: run swift build first" >&2; exit 1; }
done
# A cold start of a debug binary takes 10-20 s in a TCG guest, so CI samples what --bars runs in full.
scenarios=(controllers scan control exits restarts run supervision cache floor)
if [ "${1:-}" = --bars ]; then
  env="EXIT_MONITORS=60,EXIT_STOPS=20,EXIT_HOGS=1,RESTARTS=10,RUN_RESTARTS=10,CRASH_RIDES=3,CRASH_HOGS=1,FLOOR_DEATHS=3,FLOOR_HOGS=1,SCENARIO_TIMEOUT=3600"; timeout=7200
  scenarios+=(crash)
else
  env="EXIT_MONITORS=6,EXIT_STOPS=4,EXIT_HOGS=1,RESTARTS=3,RUN_RESTARTS=3,FLOOR_DEATHS=1,FTMS_VM_MISSED=report"; timeout=1200
fi
started=$SECONDS
status=0
results="${FTMS_VM_RESULTS:-$(mktemp -d /tmp/ftms-vm.XXXXXX)}"
mkdir -p "$results"
# crash installs the package in the guest: the debug build packaged as scripts/test.sh's deb step
# packages it, into the results folder, which the guest sees.
if [[ " ${scenarios[*]} " == *" crash "* ]]; then
  bash "$repo/scripts/package-deb.sh" --debug --no-build --no-lintian --out "$results/deb" > /dev/null 2> "$results/package-deb.log" \
    || { echo "vm/test: scripts/package-deb.sh --debug failed: $(tail -1 "$results/package-deb.log")" >&2; exit 1; }
  rm -rf "$results/deb/root" "$results/deb/shlibdeps"
fi
# exits runs `monitor` cold (the monitor scenario's checks included) and stops the daemon, each
# leaving with acquired sockets: bluetoothd 5.66 must come through.
FTMS_VM_RESULTS="$results" FTMS_VM_ENV="$env${FTMS_VM_ENV:+,$FTMS_VM_ENV}" FTMS_VM_TIMEOUT="${FTMS_VM_TIMEOUT:-$timeout}" \
  bash "$repo/scripts/vm/run.sh" "${scenarios[@]}" || status=$?
echo "vm/test: $((SECONDS - started)) s in all (status $status)" >&2
exit "$status"
