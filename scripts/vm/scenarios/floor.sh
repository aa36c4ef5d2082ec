#!/bin/bash
# The floor on real bluetoothd (docs/fleet.md): two gateways in one guest, each its own daemon on its
# own controller (floor-1 on hci0, the bike's home by machines.allow; floor-2 on hci1), the bike
# served by ftms-sim --peripheral on hci2, mosquitto and ftms-backend on the guest's loopback.
# FLOOR_DEATHS times (3): the bike's home dies mid-ride as a power cut looks to the others (the
# link ends, hci0 is powered off and its daemon SIGKILLed; btvirt keeps the bike's half of a link
# whose other end powered off, which a real radio's supervision timeout would end, so the bike's
# controller drops the link first):
#   - floor-2's first sample of the bike, counted from the power-off (bar 15 s), in the same session;
#   - the ride ends at floor-2 (`control --stop`): the backend holds that session exactly once;
#   - floor-1 comes back on its old store (hci0 on, daemon started): it uploads nothing for that
#     ride (the backend still holds it once, floor-1's queue does not have it), and the bike goes
#     home between sessions.
# FLOOR_HOGS busy loops (0) load the guest meanwhile. The bars go through report_missed (test.sh's
# CI step reports them); a broker, backend or daemon that does not start fails at once.
set -u
. "$FTMS_REPO/scripts/vm/scenarios/lib.sh"
deaths=${FLOOR_DEATHS:-3}
work=$(mktemp -d)
missed=()
command -v mosquitto > /dev/null || fail "no mosquitto in the guest image (scripts/vm/image.sh installs it)"
printf 'listener 1883 127.0.0.1\nallow_anonymous true\npersistence false\n' > "$work/mosquitto.conf"
mosquitto -c "$work/mosquitto.conf" > "$RESULTS/floor-mosquitto.log" 2>&1 &
started_pids+=($!)
"$BIN/ftms-backend" --port 0 --exit-with-stdin < <(sleep infinity) > "$work/backend.out" 2> "$RESULTS/floor-backend.log" &
started_pids+=($!)
wait_for_line "$work/backend.out" '^listening ' 30 || fail "ftms-backend did not start: $(tail -1 "$RESULTS/floor-backend.log")"
url=$(awk '/^listening/ { print $2; exit }' "$work/backend.out")
# backend_copies SESSION: how many times the backend received SESSION (0 when it holds none).
backend_copies() {
  curl -s "$url/_admin/sessions" | tr '{' '\n' | grep "\"session_id\":\"$1\"" | grep -o '"received":[0-9]*' | cut -d: -f2 | head -1
}

forget_devices hci0 hci1
start_peripheral hci2 bike:SF-Bike-0001 --rate 2
# gateway_config NAME ADAPTER ALLOW: NAME's config in $work/NAME, its store there too.
gateway_config() {
  local name=$1
  daemon_config "$work/$name/config.toml" "$work/$name" "$work/$name/state" "[\"$2\"]" "$(printf 'max_per_adapter = 1\nallow = %s' "$3")" \
    "$(printf '[sessions]\ndisconnect_grace = 60\ncheckpoint_interval = 2\npause_after_idle = 4\nend_after_idle = 6\nminimum_movement = 3\n[backend]\nurl = "%s"\nupload_interval = 2\nclock_sync_wait = 0\n[mqtt]\nenabled = true\nbroker = "mqtt://127.0.0.1:1883"\ngateway = "%s"\nclient_id = "%s"\nkeepalive = 5\n[fleet]\nenabled = true' "$url" "$name" "$name")"
  printf 'test:floor-%s\n' "$name" > "$work/$name/id-token"; chmod 600 "$work/$name/id-token"
  "$BIN/ftms-bridge" login --state-dir "$work/$name/state" --backend "$url" --provider google --id-token-file "$work/$name/id-token" \
    > "$RESULTS/floor-login-$name.log" 2>&1 || fail "$name login: $(tail -1 "$RESULTS/floor-login-$name.log")"
}
gateway_config floor-1 hci0 '["SF-Bike-0001"]'
gateway_config floor-2 hci1 '[]'
declare -A daemon
# start_gateway NAME: its daemon, stderr appended to RESULTS/floor-NAME.log.
start_gateway() {
  "$BIN/ftms-bridge" run --config "$work/$1/config.toml" > /dev/null 2>> "$RESULTS/floor-$1.log" &
  daemon[$1]=$!; started_pids+=($!)
}
# ctl NAME ARGS...: ftms-bridge ARGS through NAME's control socket.
ctl() { local name=$1; shift; "$BIN/ftms-bridge" "$@" --control-socket "$work/$name/control.sock"; }
start_gateway floor-1
start_gateway floor-2
daemon_on_bus "$RESULTS/floor-floor-1.log"
daemon_on_bus "$RESULTS/floor-floor-2.log"
# btvirt hands a scanner the advertisements only when its scan or their advertising starts.
first=$(now)
until grep -q "SF-Bike-0001 ready" "$RESULTS/floor-floor-1.log" 2>/dev/null; do
  awk -v s="$(seconds_since "$first")" 'BEGIN { exit !(s > 90) }' && fail "the bike's home (floor-1) did not take it within 90 s: $(grep -v debug "$RESULTS/floor-floor-1.log" | tail -1)"
  readvertise; sleep 1
done
sleep 2
# floor-2 must not hold the bike while its home does: the link is the lock, and the floor's placement too.
grep -q "SF-Bike-0001 ready" "$RESULTS/floor-floor-2.log" && missed+=("floor-2 took the bike while its home held it")
times=()
start_hogs "${FLOOR_HOGS:-0}"
for death in $(seq 1 "$deaths"); do
  log1="$RESULTS/floor-floor-1.log"; log2="$RESULTS/floor-floor-2.log"
  ctl floor-1 control SF-Bike-0001 --start > /dev/null 2>&1
  wait_for_line "$log1" "session .* (started|resumed) on SF-Bike-0001" 60 || fail "death $death: no session at home"
  session=$(grep -oE "session [0-9A-Fa-f-]+ (started|resumed) on SF-Bike-0001" "$log1" | tail -1 | cut -d' ' -f2)
  sleep 6   # three checkpoint intervals: the checkpoint is on the broker
  ready2=$(count_lines "$log2" "SF-Bike-0001 ready")
  gone=$(now)
  # The bike's controller ends the link first: btvirt keeps a link whose central powered off
  # half open for good (no supervision timeout), and the bike's Connect from floor-2 then never
  # answers. Then floor-1's controller goes off and its daemon is killed, within the same second.
  drop_links 2 > /dev/null
  btmgmt --index 0 power off > /dev/null
  kill -9 "${daemon[floor-1]}"
  readvertise
  until [ "$(count_lines "$log2" "SF-Bike-0001 ready")" -gt "$ready2" ]; do
    awk -v s="$(seconds_since "$gone")" 'BEGIN { exit !(s > 90) }' && fail "death $death: floor-2 did not take the bike within 90 s: $(tail -1 "$log2")"
    readvertise; sleep 0.5
  done
  # The first sample after ready: the metrics socket's next sample of the bike.
  timeout 30 "$BIN/ftms-bridge" watch --socket "$work/floor-2/metrics.sock" --json --machine SF-Bike-0001 --type sample --count 1 > "$work/watch.json" 2>&1
  took=$(seconds_since "$gone"); times+=("$took")
  awk -v s="$took" 'BEGIN { exit !(s > 15) }' && missed+=("death $death: floor-2's first sample $took s after the home's link went (bar 15 s)")
  grep -q "\"sessionId\":\"$session\"" "$work/watch.json" || grep -q "$session" "$log2" \
    || missed+=("death $death: floor-2 did not carry session $session on")
  sleep 4
  ctl floor-2 control SF-Bike-0001 --stop > /dev/null 2>&1
  for _ in $(seq 1 150); do [ -n "$(backend_copies "$session")" ] && break; sleep 0.4; done
  [ "$(backend_copies "$session")" = 1 ] || missed+=("death $death: session $session at the backend $(backend_copies "$session") time(s), not once")
  btmgmt --index 0 power on > /dev/null
  ready1=$(count_lines "$log1" "SF-Bike-0001 ready")
  start_gateway floor-1
  until [ "$(count_lines "$log1" "SF-Bike-0001 ready")" -gt "$ready1" ]; do
    awk -v s="$(seconds_since "$gone")" 'BEGIN { exit !(s > 180) }' && { missed+=("death $death: the bike not home again within 180 s"); break; }
    readvertise; sleep 0.5
  done
  sleep 4
  [ "$(backend_copies "$session")" = 1 ] || missed+=("death $death: session $session at the backend $(backend_copies "$session") times after floor-1 came back")
  "$BIN/ftms-bridge" queue --state-dir "$work/floor-1/state" --json 2>&1 | grep -q "$session" \
    && missed+=("death $death: floor-1 queued the adopted session $session")
  echo "death $death: floor-2 streamed $took s after floor-1's link went; session $session"
done
figure "floor: the neighbour's first sample after the home died, $deaths deaths, ${FLOOR_HOGS:-0} CPU hog(s) in the guest: ${times[*]} s (median $(median "${times[@]}") s; bar 15 s)"
report_missed floor "${missed[@]}"
