#!/bin/bash
# bluetoothd restarted RESTARTS times (default 6) under a running `ftms-bridge run`, with the bike
# on hci1 and the rower on hci2 and the gateway on hci0 and hci3 (one link each, as run.sh): each
# time, both machines are ready again within 45 s (an `apt upgrade` of bluez restarts it so).
# The bus (dbus-monitor) and bluetoothd's debug log are kept in RESULTS for reading a miss.
set -u
. "$FTMS_REPO/scripts/vm/scenarios/lib.sh"
work=$(mktemp -d); config="$work/config.toml"
daemon_config "$config" "$work" "$work/state" '["hci0", "hci3"]' "max_per_adapter = 1"
# The gateway forgets what earlier scenarios served on these controllers (another kind of machine
# at the same address would leave it a stale GATT cache to sort out on the first reconnect).
forget_devices hci0 hci3
start_peripheral hci1 bike:SF-Bike-0001 --rate 2
start_peripheral hci2 rower:SF-Rower-0001 --rate 2
heard_by_gateway SF-Bike-0001 SF-Rower-0001 > /dev/null || fail "hci0 did not hear both machines in 3 scan windows"
dbus-monitor --system > "$RESULTS/restarts-bus.txt" 2>&1 &
started_pids+=($!)
log="$RESULTS/restarts-daemon.log"
"$BIN/ftms-bridge" run --config "$config" > /dev/null 2> "$log" &
started_pids+=($!)
daemon_on_bus "$log"
wait_for_line "$log" "SF-Bike-0001 ready" 60 && wait_for_line "$log" "SF-Rower-0001 ready" 60 || fail "both machines not ready within 60 s of the daemon's bus connection"
times=(); missed=()
for i in $(seq 1 "${RESTARTS:-6}"); do
  sleep 3
  bike=$(count_lines "$log" "SF-Bike-0001 ready"); rower=$(count_lines "$log" "SF-Rower-0001 ready")
  start=$(now)
  restart_bluetoothd -d "$RESULTS/restarts-bluetoothd.log"
  until [ "$(count_lines "$log" "SF-Bike-0001 ready")" -gt "$bike" ] && [ "$(count_lines "$log" "SF-Rower-0001 ready")" -gt "$rower" ]; do
    awk -v s="$(seconds_since "$start")" 'BEGIN { exit !(s > 120) }' && break
    sleep 0.2
  done
  times+=("$(seconds_since "$start")"); echo "restart $i: ${times[-1]} s"
  awk -v s="${times[-1]}" 'BEGIN { exit !(s > 45) }' && missed+=("restart $i: both machines not ready again within 45 s (${times[-1]} s)")
done
# The scenarios after this one get bluetoothd as guest.sh started it, without the debug log.
restart_bluetoothd
figure "bluetoothd restarted ${#times[@]} times: both machines ready again after ${times[*]} s (median $(median "${times[@]}") s)"
report_missed restarts "${missed[@]}"
