#!/usr/bin/env bash
# The simulated gym, end to end, on a machine with no Bluetooth and no network:
#
#   1. a private dbus-daemon standing in for the system bus (scripts/test-bus.sh);
#   2. ftms-sim owning org.bluez on it: SF-Bike-0001 and SF-Rower-0001 riding the first
#      minute of two bundled captures (scripts/demo/*.ftmscap), then stopping;
#   3. ftms-backend, the reference SolidFocus backend, on a loopback port;
#   4. `ftms-bridge login` (the id token from a file, never the command line);
#   5. `ftms-bridge run` with its state, sockets and config in a temporary directory;
#   6. `ftms-bridge watch` on the metrics socket until both sessions are summarised, then
#      `ftms-bridge status` through the control socket, showing them uploaded.
# With MQTT (docs/mqtt.md): a private mosquitto, both gateways publishing to it (a second one,
# "back", with its own bus and ftms-sim), and one `mosquitto_sub -t 'ftms-bridge/#'` showing
# every machine of both gateways.
#
# Everything is stopped on exit and on Ctrl-C. Usage: scripts/gym-demo.sh [--bin DIR] [--keep]
# (--keep leaves the temporary directory, with the daemon's log, for a look afterwards).
set -euo pipefail
cd "$(dirname "$0")/.."
bin=.build/release
keep=0
while [ $# -gt 0 ]; do
  case "$1" in
    --bin) bin=$2; shift 2 ;;
    --keep) keep=1; shift ;;
    *) echo "gym-demo: unknown option $1 (use --bin DIR, --keep)" >&2; exit 2 ;;
  esac
done
for tool in ftms-bridge ftms-bridged ftms-sim ftms-backend; do
  [ -x "$bin/$tool" ] || { echo "gym-demo: $bin/$tool not built (swift build -c release)" >&2; exit 1; }
done
bin=$(cd "$bin" && pwd)

work=$(mktemp -d /tmp/ftms-demo.XXXXXX)
pids=()
cleanup() {
  trap - EXIT INT TERM
  for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  scripts/test-bus.sh stop "$work/bus" >/dev/null 2>&1 || true
  scripts/test-bus.sh stop "$work/back/bus" >/dev/null 2>&1 || true
  if [ "$keep" = 1 ]; then echo "demo: kept $work" >&2; else rm -rf "$work"; fi
}
trap cleanup EXIT
trap 'echo; echo "demo: interrupted, cleaning up" >&2; exit 130' INT TERM
say() { printf '\n\033[1m== %s\033[0m\n' "$*"; }

say "1. a private system bus"
export "$(scripts/test-bus.sh start "$work/bus")"
echo "$DBUS_SYSTEM_BUS_ADDRESS"

say "2. ftms-sim: SF-Bike-0001 and SF-Rower-0001 riding recorded captures"
"$bin/ftms-sim" --bus "$DBUS_SYSTEM_BUS_ADDRESS" --bikes 1 --rowers 1 \
  --ride bike=scripts/demo/bike-ride.ftmscap --ride rower=scripts/demo/rower-ride.ftmscap \
  > "$work/sim.log" 2>&1 &
pids+=($!)

say "3. the reference backend on loopback"
mkfifo "$work/backend.out"
"$bin/ftms-backend" --port 0 --state "$work/backend.state" > "$work/backend.out" 2> "$work/backend.log" &
pids+=($!)
read -r -t 30 listening url < "$work/backend.out" || { echo "demo: the backend did not start:" >&2; cat "$work/backend.log" >&2; exit 1; }
cat "$work/backend.out" > /dev/null &
echo "$url"

say "3b. a private MQTT broker (mosquitto, a password file, loopback)"
umask 077
mkdir -p "$work/broker"
mqtt_port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
mqtt_password=$(head -c 12 /dev/urandom | od -An -tx1 | tr -d ' \n')
printf 'gateway:%s\n' "$mqtt_password" > "$work/broker/passwd"
mosquitto_passwd -U "$work/broker/passwd"
printf '%s\n' "$mqtt_password" > "$work/mqtt-password"
{ [ "$(id -u)" = 0 ] && echo "user root"
  printf 'persistence false\nallow_anonymous false\npassword_file %s\nlistener %s 127.0.0.1\n' "$work/broker/passwd" "$mqtt_port"; } > "$work/broker/mosquitto.conf"
mosquitto -c "$work/broker/mosquitto.conf" > "$work/broker.log" 2>&1 &
pids+=($!)
# mosquitto_sub reads its login from its config file, never the command line.
mkdir -p "$work/sub"
printf -- '-h 127.0.0.1\n-p %s\n-u gateway\n-P %s\n' "$mqtt_port" "$mqtt_password" > "$work/sub/mosquitto_sub"
mqtt_sub() { XDG_CONFIG_HOME="$work/sub" mosquitto_sub "$@"; }
echo "mqtt://127.0.0.1:$mqtt_port"

say "4. log the gateway in (SolidFocus Flow 2)"
mkdir -p "$work/state" "$work/run"
printf 'test:demo-gym\n' > "$work/id-token"
"$bin/ftms-bridge" login --state-dir "$work/state" --backend "$url" --provider google --id-token-file "$work/id-token"

cat > "$work/config.toml" <<TOML
# The demo's config: the defaults (docs/configuration.md), but short session timers so that
# a one-minute ride ends in seconds, and everything in a temporary directory.
[sessions]
pause_after_idle = 4
end_after_idle = 8
minimum_movement = 20

[backend]
url = "$url"
upload_interval = 30

[state]
directory = "$work/state"

[metrics_socket]
path = "$work/run/metrics.sock"

[control_socket]
path = "$work/run/control.sock"

[prometheus]
listen = "127.0.0.1:0"

[log]
level = "info"

[mqtt]
enabled = true
broker = "mqtt://127.0.0.1:$mqtt_port"
gateway = "front"
username = "gateway"
password_file = "$work/mqtt-password"
TOML

say "5. ftms-bridge run (log: $work/daemon.log)"
"$bin/ftms-bridge" run --config "$work/config.toml" 2> "$work/daemon.log" &
daemon=$!
pids+=($daemon)
for _ in $(seq 1 100); do [ -S "$work/run/metrics.sock" ] && break; sleep 0.1; done
[ -S "$work/run/metrics.sock" ] || { echo "demo: the daemon did not start:" >&2; cat "$work/daemon.log" >&2; exit 1; }

say "5b. a second gateway, \"back\": its own bus, ftms-sim, login and daemon, the same broker"
mkdir -p "$work/back/state" "$work/back/run"
back_bus=$(scripts/test-bus.sh start "$work/back/bus" | cut -d= -f2-)
"$bin/ftms-sim" --bus "$back_bus" --bikes 1 --rowers 1 --rate 2 > "$work/back/sim.log" 2>&1 &
pids+=($!)
printf 'test:demo-gym-back\n' > "$work/back/id-token"
"$bin/ftms-bridge" login --state-dir "$work/back/state" --backend "$url" --provider google --id-token-file "$work/back/id-token"
sed -e "s|$work/state|$work/back/state|; s|$work/run/|$work/back/run/|; s|gateway = \"front\"|gateway = \"back\"|" \
  "$work/config.toml" > "$work/back/config.toml"
DBUS_SYSTEM_BUS_ADDRESS="$back_bus" "$bin/ftms-bridge" run --config "$work/back/config.toml" 2> "$work/back/daemon.log" &
pids+=($!)

say "5c. the whole gym on one subscriber: mosquitto_sub -t 'ftms-bridge/+/status' -t 'ftms-bridge/+/machines/+/state'"
for _ in $(seq 1 100); do
  [ "$(mqtt_sub -t 'ftms-bridge/+/machines/+/state' -W 1 2>/dev/null | grep -c '"state":"ready"')" -ge 4 ] && break
done
mqtt_sub -t 'ftms-bridge/+/status' -t 'ftms-bridge/+/machines/+/state' -v -W 1 2>/dev/null | cut -c1-160 || true
echo "-- and live samples from both gateways (mosquitto_sub -t 'ftms-bridge/+/machines/+/sample' -C 4):"
mqtt_sub -t 'ftms-bridge/+/machines/+/sample' -v -C 4 -W 10 | cut -c1-160 || true

# The gym-floor dashboard on loopback, fed by the broker: both gateways on one page. The demo
# opens nothing, it prints the address.
"$bin/ftms-bridge" dashboard --listen 127.0.0.1:0 --mqtt "mqtt://127.0.0.1:$mqtt_port" --mqtt-username gateway \
  --mqtt-password-file "$work/mqtt-password" --title "SolidFocus demo gym" \
  > "$work/dashboard.out" 2> "$work/dashboard.log" &
pids+=($!)
for _ in $(seq 1 100); do [ -s "$work/dashboard.out" ] && break; sleep 0.1; done
echo "demo: the gym floor in a browser: $(cut -d' ' -f2 "$work/dashboard.out") (docs/dashboard.md)"

say "6. live metrics (ftms-bridge watch): riding for about a minute, then the sessions end"
"$bin/ftms-bridge" watch --lines --socket "$work/run/metrics.sock" --type machine --type session_state --type session_summary --type upload &
watcher=$!
pids+=($watcher)
"$bin/ftms-bridge" watch --lines --socket "$work/run/metrics.sock" --type sample --count 8
summaries=0
for _ in $(seq 1 240); do
  summaries=$(grep -c "session .* finished on" "$work/daemon.log" || true)
  [ "$summaries" -ge 2 ] && break
  sleep 1
done
sleep 3
kill "$watcher" 2>/dev/null || true

say "7. ftms-bridge status (through the control socket)"
FTMS_BRIDGE_CONTROL_SOCKET="$work/run/control.sock" "$bin/ftms-bridge" status --state-dir "$work/state" --control-socket "$work/run/control.sock" || true

say "8. what the backend holds"
# Every finished session must reach it, on any box: one whose kernel calls the clock
# unsynchronised dates them by the loopback backend's Date (contract §5), so they go up within
# seconds, not after clock_sync_wait. The demo fails loudly otherwise.
held=0
for _ in $(seq 1 60); do
  held=$(curl -s "$url/_admin/sessions" | python3 -c 'import json, sys; print(json.load(sys.stdin)["total"])' 2>/dev/null || echo 0)
  [ "$held" -ge "$summaries" ] && [ "$held" -gt 0 ] && break
  sleep 1
done
curl -s "$url/_admin/sessions?bodies=1" | python3 -c '
import json, sys
held = json.load(sys.stdin)
print(held["total"], "sessions at the backend:")
for s in held["sessions"]:
    body = s.get("body") or {}
    print(" ", s["session_id"], body.get("started_at", "?"), "-", body.get("ended_at", "?"),
          (body.get("detail") or {}).get("clock", "true dates"), "received", s["received"], "time(s)")'
[ "$summaries" -ge 2 ] || { echo "demo: only $summaries of 2 sessions finished; daemon log: $work/daemon.log" >&2; keep=1; exit 1; }
if [ "$held" -lt "$summaries" ] || [ "$held" -eq 0 ]; then
  echo "demo: FAIL: $summaries session(s) finished but the backend holds $held; the clock line of status above says why; daemon log: $work/daemon.log" >&2
  keep=1
  exit 1
fi
echo
echo "demo: done. Stopping everything."
