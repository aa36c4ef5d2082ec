#!/bin/bash
# Machines that wake, against real bluetoothd: `ftms-bridge run` is up first with nothing in range;
# then SF-Bike-0001 (ftms-sim --peripheral on hci1) is switched on, WAKE_RUNS times (default 1): the
# first time never seen, then after being switched off for ASLEEP seconds (default 60) as a known
# machine. Each time: seconds from its advertisement being registered to the first decoded `sample`
# on the metrics socket (`ftms-bridge watch --count 1`). Bar: p95 <= 5 s.
# Known machines (WAKE_RUNS > 1) need the link to drop when the machine goes: ending ftms-sim leaves
# the ACL link between the two controllers up, so hci1 then disconnects every central linked to it
# (drop_links), as a machine going to sleep drops its link.
#   FTMS_VM_ENV=WAKE_RUNS=2,ASLEEP=600,SCENARIO_TIMEOUT=900 FTMS_VM_TIMEOUT=1100 scripts/vm/run.sh wake
set -u
. "$FTMS_REPO/scripts/vm/scenarios/lib.sh"
runs=${WAKE_RUNS:-1}
asleep=${ASLEEP:-60}
work=$(mktemp -d)
config="$work/config.toml"
daemon_config "$config" "$work" "$work/state" '["hci0"]'
log="$RESULTS/wake-daemon.log"
"$BIN/ftms-bridge" run --config "$config" > /dev/null 2> "$log" &
started_pids+=($!)
wait_for_line "$log" "READY|ready|discover" 30 || true
sleep 10
times=()
for run in $(seq 1 "$runs"); do
  out="$RESULTS/wake-$run.json"
  timeout 60 "$BIN/ftms-bridge" watch --socket "$work/metrics.sock" --json --type sample --count 1 > "$out" 2>&1 &
  watcher=$!
  sleep 1
  start_peripheral hci1 bike:SF-Bike-0001 --rate 4
  peripheral=${started_pids[-1]}
  woke=$(now)
  wait "$watcher"
  if grep -q '"type":"sample"' "$out"; then
    took=$(seconds_since "$woke")
    times+=("$took")
    figure "wake $run ($([ "$run" = 1 ] && echo "never seen" || echo "known, off ${asleep} s")): first sample after $took s"
  else
    figure "wake $run: no sample within 60 s: $(tail -1 "$out"); $(grep SF-Bike-0001 "$log" | tail -1 | cut -d' ' -f3-)"
    times+=(60)
  fi
  [ "$run" = "$runs" ] && break
  kill "$peripheral"; wait "$peripheral" 2>/dev/null
  drop_links 1 > /dev/null
  sleep "$asleep"
done
worst=$(printf '%s\n' "${times[@]}" | sort -g | tail -1)
figure "wake → first sample over $runs wakes: median $(median "${times[@]}") s, max $worst s (bar p95 5 s)"
awk -v w="$worst" 'BEGIN { exit !(w <= 5) }' || fail "a wake took $worst s to the first sample (bar 5 s)"
