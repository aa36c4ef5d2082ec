#!/bin/bash
# The daemon's memory on Debian 12's own kernel (6.1), which the host's newer kernel is not: ten
# simulated machines (ftms-sim as BlueZ on a private bus; no radio is involved) ride at 4 Hz for
# MEMORY_SECONDS (default 300; the guest gives a scenario 600 s in all) while one session in turn ends every 30 s and is uploaded to the
# reference backend. Every 10 s it samples what the daemon cannot give back, anonymous memory
# (RssAnon) and its proportional share of all it maps (Pss, smaps_rollup), and RSS beside them.
# Uses the release build (memory of a debug build says nothing); not part of scripts/vm/test.sh.
#   FTMS_VM_ENV=MEMORY_SECONDS=1800 scripts/vm/run.sh memory
set -u
. "$FTMS_REPO/scripts/vm/scenarios/lib.sh"
release="$FTMS_REPO/.build/release"
[ -x "$release/ftms-bridged" ] || fail "no release build in $release (swift build -c release)"
seconds=${MEMORY_SECONDS:-300}
work=$(mktemp -d /tmp/memory.XXXXXX)
address=$("$FTMS_REPO/scripts/test-bus.sh" start "$work/bus" | cut -d= -f2-) || fail "no private bus"
"$release/ftms-sim" --bus "$address" --bikes 5 --rowers 5 --rate 4 --known > /dev/null 2> "$RESULTS/memory-sim.log" &
started_pids+=($!)
"$release/ftms-backend" --port 0 > "$work/backend.out" 2> "$RESULTS/memory-backend.log" &
started_pids+=($!)
for _ in $(seq 1 100); do grep -q '^listening' "$work/backend.out" && break; sleep 0.2; done
url=$(awk '/^listening/ { print $2 }' "$work/backend.out")
[ -n "$url" ] || fail "ftms-backend did not start: $(tail -1 "$RESULTS/memory-backend.log")"
mkdir -m 700 "$work/state"
(umask 077; echo "test:memory" > "$work/id-token")
"$release/ftms-bridge" login --state-dir "$work/state" --backend "$url" --provider google --id-token-file "$work/id-token" \
  > /dev/null 2> "$work/login.err" || fail "login: $(tail -1 "$work/login.err")"
cat > "$work/config.toml" <<TOML
[machines]
max_connected = 10
max_per_adapter = 10
[state]
directory = "$work/state"
[metrics_socket]
path = "$work/metrics.sock"
[control_socket]
path = "$work/control.sock"
[backend]
url = "$url"
upload_interval = 60
[log]
level = "notice"
TOML
DBUS_SYSTEM_BUS_ADDRESS="$address" "$release/ftms-bridged" --config "$work/config.toml" 2> "$RESULTS/memory-daemon.log" &
daemon=$!
started_pids+=($daemon)
kib() { awk -v key="$2:" '$1 == key { print $2 }' "$1"; }
names=(SF-Bike-0001 SF-Rower-0001 SF-Bike-0002 SF-Rower-0002 SF-Bike-0003 SF-Rower-0003 SF-Bike-0004 SF-Rower-0004 SF-Bike-0005 SF-Rower-0005)
control() { "$release/ftms-bridge" control "$1" "$2" --control-socket "$work/control.sock" > /dev/null 2>&1; }
sleep 30   # connecting ten machines and opening their sessions
anon=(); pss=(); rss=(); turn=0
for tick in $(seq 1 $((seconds / 10))); do
  kill -0 "$daemon" 2>/dev/null || fail "the daemon exited: $(tail -1 "$RESULTS/memory-daemon.log")"
  anon+=("$(kib /proc/$daemon/status RssAnon)")
  rss+=("$(kib /proc/$daemon/status VmRSS)")
  pss+=("$(kib /proc/$daemon/smaps_rollup Pss)")
  echo "sample $((tick * 10)) s: RssAnon ${anon[-1]} KiB, Pss ${pss[-1]} KiB, RSS ${rss[-1]} KiB"
  if [ $((tick % 3)) = 0 ]; then
    name=${names[$((turn % 10))]}; turn=$((turn + 1))
    control "$name" --stop; (sleep 5; control "$name" --start) &
  fi
  sleep 10
done
uploaded=$("$release/ftms-bridge" queue --state-dir "$work/state" --json 2>/dev/null | grep -c '"upload_status":"uploaded"')
mb() { awk -v k="$1" 'BEGIN { printf "%.1f", k / 1024 }'; }
n=${#anon[@]}
figure "kernel $(uname -r), ${seconds} s, 10 machines at 4 Hz, $turn sessions ended, $uploaded uploaded"
figure "RssAnon MB first $(mb "${anon[0]}") median $(mb "$(median "${anon[@]}")") max $(mb "$(printf '%s\n' "${anon[@]}" | sort -n | tail -1)") last $(mb "${anon[$((n - 1))]}")"
figure "Pss MB median $(mb "$(median "${pss[@]}")") max $(mb "$(printf '%s\n' "${pss[@]}" | sort -n | tail -1)")"
figure "RSS MB median $(mb "$(median "${rss[@]}")") max $(mb "$(printf '%s\n' "${rss[@]}" | sort -n | tail -1)")"
[ "$uploaded" -gt 0 ] || fail "no session was uploaded"
