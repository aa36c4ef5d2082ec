#!/bin/bash
# `ftms-bridge monitor` against real bluetoothd: decodes the stream of a bike served by ftms-sim on
# hci1, MONITOR_RUNS times (default 20), counting the runs that connected on their first attempt
# (no "retrying" on stderr). The bar: every one.
set -u
. "$FTMS_REPO/scripts/vm/scenarios/lib.sh"
runs=${MONITOR_RUNS:-20}
start_peripheral hci1 bike:SF-Bike-0001 --rate 4
first=0; times=()
for run in $(seq 1 "$runs"); do
  start=$(now)
  timeout 60 "$BIN/ftms-bridge" monitor SF-Bike-0001 --adapter hci0 --count 4 --json > "$RESULTS/monitor-$run.out" 2> "$RESULTS/monitor-$run.err"
  status=$?
  times+=("$(seconds_since "$start")")
  [ "$status" = 0 ] || fail "monitor run $run exited $status: $(tail -1 "$RESULTS/monitor-$run.err")"
  [ "$(grep -c '^{' "$RESULTS/monitor-$run.out")" -ge 4 ] \
    || fail "monitor run $run printed no decoded frames: $(head -1 "$RESULTS/monitor-$run.out")"
  grep -q 'retrying' "$RESULTS/monitor-$run.err" || first=$((first + 1))
done
head -2 "$RESULTS/monitor-1.out"; cat "$RESULTS/monitor-1.err"
figure "monitor first-attempt connects $first of $runs; median run $(median "${times[@]}") s"
[ "$first" = "$runs" ] || fail "monitor connected on its first attempt $first of $runs times"
