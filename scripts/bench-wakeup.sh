#!/bin/bash
# What one thread wake-up costs on this machine with no work done: the floor under the
# daemon's CPU per notification (docs/performance.md, "The floors").
#
#   scripts/bench-wakeup.sh [RATE] [SECONDS] [RUNS]     # defaults: 40 Hz, 15 s, 3 runs
#
# Builds scripts/lib/wakeup-cost.c with the system C compiler into a temporary directory and
# runs it RUNS times; each run prints, per thread, the CPU per wake-up of a thread woken by a
# timer, of a timer thread handing each wake-up to a second thread over an eventfd (as the bus
# thread hands a notification to the event loop), and of one thread doing both. Then, RUNS times,
# scripts/lib/acquire-floor.c for SECONDS each: the CPU of a C process that only receives ten
# machines' AcquireNotify datagrams (bunched as ftms-sim sends them, and spread), the floor under
# docs/performance.md's AcquireNotify bar.
set -euo pipefail
rate=${1:-40}
seconds=${2:-15}
runs=${3:-3}
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cc -O2 -pthread -o "$work/wakeup-cost" "$here/lib/wakeup-cost.c"
for run in $(seq 1 "$runs"); do
    echo "run $run ($rate Hz, $seconds s each)"
    "$work/wakeup-cost" "$rate" "$seconds"
done
# Then the floor under the AcquireNotify bar: a C reader of ten machines' datagrams at 4 Hz, in
# the simulator's bunching and spread out, with and without a metrics-socket write per datagram.
cc -O2 -o "$work/acquire-floor" "$here/lib/acquire-floor.c"
for run in $(seq 1 "$runs"); do
    for options in "" "--publish" "--spread" "--spread --publish"; do
        # shellcheck disable=SC2086
        "$work/acquire-floor" --machines 10 --rate 4 --duration "$seconds" $options
    done
done
