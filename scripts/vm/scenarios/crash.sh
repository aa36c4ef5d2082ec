#!/bin/bash
# bluetoothd killed with SIGSEGV mid-ride on a gateway with the Debian package installed
# (docs/systemd.md, "When bluetoothd crashes"): the gateway's daemon has samples again within 20 s
# of the kill, and the backend holds one session per ride.
#
# The guest has no systemd (guest-init is PID 1), so the package is unpacked with dpkg and its
# units are run as closely as a shell can: the user its sysusers file names; ftms-bridged as its
# unit's ExecStart, User, Group, SupplementaryGroups, UMask and Environment, in its
# StateDirectory and RuntimeDirectory; bluetoothd as Debian's bluetooth.service with every
# drop-in of it (the package's among them), restarted as systemd would: Restart= and RestartSec=
# read from the unit and its drop-ins, on-failure meaning an exit by an unclean signal or a
# non-zero status (systemd.service(5)). Before the package, that reading must be Debian's own
# Restart=no, so the restarts below are the drop-in's doing.
# CRASH_RIDES rides (3) of SF-Bike-0001 (ftms-sim --peripheral on hci1; the gateway is hci0), each
# with CRASH_KILLS kills (1) of bluetoothd by `kill -SEGV`, ftms-backend on loopback:
#   - seconds from the kill to the first sample on the metrics socket once the daemon has the bike
#     ready again (bar 20 s), that sample in the ride's session; where the seconds went is in
#     crash-timeline-RIDE-KILL.txt (every log stamped with the guest's uptime, merged);
#   - after the ride (the bike switched off, its session ended), the backend holds that session
#     exactly once, and no other session started.
# CRASH_HOGS busy loops (0) load the guest during the rides. The bars go through report_missed (test.sh's CI step reports them); a bluetoothd that is not
# restarted, a package that does not install and a ride that never starts fail at once.
set -u
. "$FTMS_REPO/scripts/vm/scenarios/lib.sh"
rides=${CRASH_RIDES:-3}
kills=${CRASH_KILLS:-1}
deb=$(ls "$RESULTS"/deb/ftms-bridge_*.deb "$FTMS_REPO"/.build/deb/ftms-bridge_*-1_*.deb 2>/dev/null | head -1)
[ -n "$deb" ] || fail "no package: scripts/vm/test.sh builds one into the results folder (scripts/package-deb.sh --debug --out RESULTS/deb)"
work=$(mktemp -d)
missed=()

# unit_setting UNIT KEY: KEY's value for systemd UNIT: its last assignment in the unit file, then
# in each drop-in (*.conf in UNIT.d under /usr/lib, /run and /etc; by file name, /etc's file
# overriding a /usr/lib one of the same name), the last one read winning.
unit_setting() {
  local unit=$1 key=$2 value="" file name
  local -A dropins=()
  for file in /usr/lib/systemd/system/"$unit".d/*.conf /run/systemd/system/"$unit".d/*.conf /etc/systemd/system/"$unit".d/*.conf; do
    [ -f "$file" ] && dropins[$(basename "$file")]=$file
  done
  for file in /usr/lib/systemd/system/"$unit" $(printf '%s\n' "${!dropins[@]}" | sort | while read -r name; do [ -n "$name" ] && echo "${dropins[$name]}"; done); do
    [ -f "$file" ] || continue
    while IFS= read -r line; do
      [[ "$line" == "$key="* ]] && value=${line#"$key="}
    done < "$file"
  done
  echo "$value"
}
# seconds VALUE: a systemd time span (2s, 500ms, 2) in seconds.
seconds() {
  case "$1" in
    *ms) awk -v v="${1%ms}" 'BEGIN { print v / 1000 }' ;;
    *s) echo "${1%s}" ;;
    "") echo 0.1 ;;  # systemd's default RestartSec
    *) echo "$1" ;;
  esac
}

[ -f /usr/lib/systemd/system/bluetooth.service ] || fail "no bluetooth.service in the guest (bluez's unit)"
before=$(unit_setting bluetooth.service Restart)
[ "${before:-no}" = no ] || fail "bluetooth.service already has Restart=$before before the package: the drop-in's effect cannot be shown"

# The package, unpacked (its postinst needs systemd-sysusers and deb-systemd-helper, which a guest
# without systemd lacks), then what that postinst does: the users of its sysusers file, the
# config's 0640 root:ftms-bridge.
dpkg --force-depends --unpack "$deb" > "$RESULTS/crash-dpkg.log" 2>&1 || fail "dpkg --unpack $(basename "$deb"): $(tail -1 "$RESULTS/crash-dpkg.log")"
# What dpkg's configure does for a first install's conffiles: the unpacked copy takes its place.
for conffile in $(dpkg-query --showformat='${Conffiles}\n' --show ftms-bridge | awk '{ print $1 }'); do
  [ -f "$conffile.dpkg-new" ] && mv "$conffile.dpkg-new" "$conffile"
done
[ -f /etc/ftms-bridge/config.toml ] || fail "the package left no /etc/ftms-bridge/config.toml"
while read -r kind name _; do
  case "$kind" in
    u) id "$name" > /dev/null 2>&1 || useradd --system --user-group --no-create-home --home-dir / --shell /usr/sbin/nologin "$name" ;;
    m) usermod -a -G "$(awk -v n="$name" '$1 == "m" && $2 == n { print $3 }' /usr/lib/sysusers.d/ftms-bridge.conf | paste -sd,)" "$name" ;;
  esac
done < <(grep -E '^(u|m) ' /usr/lib/sysusers.d/ftms-bridge.conf)
chgrp ftms-bridge /etc/ftms-bridge/config.toml && chmod 0640 /etc/ftms-bridge/config.toml
restart=$(unit_setting bluetooth.service Restart)
restart_sec=$(seconds "$(unit_setting bluetooth.service RestartSec)")
[ "$restart" = on-failure ] || fail "bluetooth.service has Restart=${restart:-no} with the package installed (its drop-in: $(ls /usr/lib/systemd/system/bluetooth.service.d/ 2>/dev/null))"
figure "package $(basename "$deb") unpacked: bluetooth.service Restart=${before:-no} (unset) before, Restart=$restart RestartSec=${restart_sec} s with it"

# bluetoothd as bluetooth.service under systemd: started again after RestartSec when it exits by
# an unclean signal or a non-zero status, each exit a line in crash-supervision.log. Its debug log
# goes to crash-bluetoothd.log, each line stamped with the guest's uptime (crash-timeline-*.txt).
supervise_bluetoothd() {
  local status
  while [ ! -e "$work/bluetoothd.stop" ]; do
    /usr/libexec/bluetooth/bluetoothd -n -d > >(uptime_stamp >> "$RESULTS/crash-bluetoothd.log") 2>&1 &
    echo $! > /run/ftms-vm/bluetoothd.pid
    wait $!; status=$?
    echo "$(now) bluetoothd exited with status $status" >> "$RESULTS/crash-supervision.log"
    [ -e "$work/bluetoothd.stop" ] && break
    case "$status" in
      0|129|130|141|143) break ;;   # a clean exit or SIGHUP, SIGINT, SIGPIPE, SIGTERM: not a failure
    esac
    sleep "$restart_sec"
    echo "$(now) bluetoothd started again (Restart=$restart, RestartSec=$restart_sec)" >> "$RESULTS/crash-supervision.log"
  done
}
old=$(cat /run/ftms-vm/bluetoothd.pid)
kill "$old"; while kill -0 "$old" 2>/dev/null; do sleep 0.1; done
supervise_bluetoothd &
supervisor=$!
for _ in $(seq 1 100); do
  dbus-send --system --print-reply --dest=org.bluez / org.freedesktop.DBus.ObjectManager.GetManagedObjects > /dev/null 2>&1 && break
  sleep 0.2
done
for index in 0 1 2 3; do btmgmt --index "$index" power on > /dev/null 2>&1; done
# restore: the scenarios after this one get bluetoothd as guest.sh starts it.
restore() {
  touch "$work/bluetoothd.stop"
  local pid; pid=$(cat /run/ftms-vm/bluetoothd.pid)
  kill "$pid" 2>/dev/null; while kill -0 "$pid" 2>/dev/null; do sleep 0.1; done
  wait "$supervisor" 2>/dev/null
  /usr/libexec/bluetooth/bluetoothd -n >> "$RESULTS/bluetoothd.log" 2>&1 &
  echo $! > /run/ftms-vm/bluetoothd.pid
}

"$BIN/ftms-backend" --port 0 > "$work/backend.out" 2> "$RESULTS/crash-backend.log" &
started_pids+=($!)
for _ in $(seq 1 100); do grep -q '^listening' "$work/backend.out" && break; sleep 0.2; done
url=$(awk '/^listening/ { print $2 }' "$work/backend.out")
[ -n "$url" ] || { restore; fail "ftms-backend did not start: $(tail -1 "$RESULTS/crash-backend.log")"; }
hostport=${url#http://}; hostport=${hostport%%/*}
# backend_sessions: the backend's /_admin/sessions (bash's /dev/tcp: the guest has no curl).
backend_sessions() {
  exec 5<>"/dev/tcp/${hostport%:*}/${hostport#*:}" || return 1
  printf 'GET /_admin/sessions HTTP/1.0\r\nHost: %s\r\n\r\n' "$hostport" >&5
  timeout 10 cat <&5
  exec 5<&-
}

# The operator's edits of the packaged config: the backend, the gateway's adapter (the guest's
# other controllers are the machines'), short rides, quick uploads, and the debug log (what the
# timelines below are read from). sessions.disconnect_grace
# stays the package's 60 s: a ride continues as one session only if the machine is back within it
# (with 10 s, a recovery of 15.8 s split the first ride measured in two).
sed -i -e "s|^#url = \"\"|url = \"$url\"|" -e 's|^#upload_interval = 900|upload_interval = 5|' \
  -e 's|^#adapters = \[\]|adapters = ["hci0"]|' -e 's|^#minimum_movement = 60|minimum_movement = 10|' \
  -e 's|^#level = "info"|level = "debug"|' /etc/ftms-bridge/config.toml
grep -q "^url = \"$url\"" /etc/ftms-bridge/config.toml && grep -q '^adapters = \["hci0"\]' /etc/ftms-bridge/config.toml \
  || { restore; fail "the packaged config.toml did not take the edits (its commented defaults changed?)"; }
unit=/usr/lib/systemd/system/ftms-bridge.service
setting() { sed -n "s/^$1=//p" "$unit" | tail -1; }
user=$(setting User); group=$(setting Group); groups=$(setting SupplementaryGroups); umask_value=$(setting UMask)
read -r -a exec_start <<< "$(setting ExecStart)"
environment=()
while read -r line; do read -r -a words <<< "$line"; environment+=("${words[@]}"); done < <(sed -n 's/^Environment=//p' "$unit")
# StateDirectory= and RuntimeDirectory= as systemd makes them (owned by the unit's user).
install -d -m 0700 -o "$user" -g "$group" /var/lib/ftms-bridge
install -d -m 0751 -o "$user" -g "$group" /run/ftms-bridge
(umask 077; echo "test:crash" > "$work/id-token")
/usr/bin/ftms-bridge login --backend "$url" --provider google --id-token-file "$work/id-token" > "$work/login.out" 2> "$RESULTS/crash-login.log" \
  || { restore; fail "ftms-bridge login: $(tail -1 "$RESULTS/crash-login.log")"; }
chown -R "$user:$group" /var/lib/ftms-bridge
log="$RESULTS/crash-daemon.log"
(umask "$umask_value"; exec setpriv --reuid="$user" --regid="$group" --groups="$groups" --inh-caps=-all \
  env "${environment[@]}" "${exec_start[@]}") > /dev/null 2> >(uptime_stamp > "$log") &
daemon=$!
started_pids+=($daemon)
wait_for_line "$log" "ready: metrics" 60 || { restore; fail "ftms-bridged not ready within 60 s: $(tail -1 "$log")"; }
figure "ftms-bridged as ftms-bridge.service runs it: ${exec_start[*]} as $user:$group (+$groups), umask $umask_value"

# timeline FILE FROM TO: the lines of the scenario's logs stamped from FROM to TO (guest uptime),
# merged in time order, each with its log's name: bluetoothd's debug log, the supervision,
# the daemon's debug log and the bike's. Where a recovery's seconds went.
timeline() {
  local source
  for source in bluetoothd:crash-bluetoothd.log restart:crash-supervision.log daemon:crash-daemon.log bike:peripheral-SF-Bike-0001.log; do
    awk -v from="$2" -v to="$3" -v tag="${source%%:*}" '$1 + 0 >= from && $1 + 0 <= to { $1 = $1 " " tag; print }' "$RESULTS/${source#*:}"
  done | sort -s -g -k1,1 > "$1"
}
# first_after FILE T: the first sample of FILE stamped after T.
first_after() { awk -v t="$2" '$1 > t && /"type":"sample"/ { print; exit }' "$1"; }
times=()
start_hogs "${CRASH_HOGS:-0}"
for ride in $(seq 1 "$rides"); do
  sessions_before=$(count_lines "$log" "session .* started on SF-Bike-0001")
  ready_before=$(count_lines "$log" "SF-Bike-0001 ready")
  start_peripheral hci1 bike:SF-Bike-0001 --rate 2
  sim=${started_pids[-1]}
  samples="$RESULTS/crash-samples-$ride.txt"
  timeout 600 /usr/bin/ftms-bridge watch --socket /run/ftms-bridge/metrics.sock --json --type sample > >(uptime_stamp > "$samples") 2>&1 &
  watcher=$!
  started_pids+=($watcher)
  ride_deadline=$((SECONDS + 120)); look=0
  until [ "$(count_lines "$log" "session .* started on SF-Bike-0001")" -gt "$sessions_before" ]; do
    kill -0 "$daemon" 2>/dev/null || { restore; fail "ftms-bridged exited: $(tail -1 "$log")"; }
    [ "$SECONDS" -lt "$ride_deadline" ] || { restore; fail "ride $ride: no session started on SF-Bike-0001 within 120 s: $(tail -1 "$log")"; }
    # btvirt hands the scanner an advertisement only when advertising or scanning starts.
    look=$((look + 1))
    [ $((look % 10)) = 0 ] && [ "$(count_lines "$log" "SF-Bike-0001 ready")" = "$ready_before" ] && readvertise
    sleep 0.5
  done
  session=$(grep -o "session [0-9a-f-]* started on SF-Bike-0001" "$log" | tail -1 | cut -d' ' -f2)
  sleep 8
  for kill_index in $(seq 1 "$kills"); do
    pids=$(pidof bluetoothd)
    [ "$(wc -w <<< "$pids")" = 1 ] || { restore; fail "ride $ride: pidof bluetoothd gives '$pids', not one process"; }
    ready=$(count_lines "$log" "SF-Bike-0001 ready")
    killed=$(now)
    kill -SEGV "$pids"
    echo "$killed bluetoothd $pids killed by SIGSEGV (ride $ride)" >> "$RESULTS/crash-supervision.log"
    until [ -n "$(pidof bluetoothd)" ] && [ "$(pidof bluetoothd)" != "$pids" ]; do
      awk -v s="$(seconds_since "$killed")" 'BEGIN { exit !(s > 30) }' && { restore; fail "ride $ride: bluetoothd not started again within 30 s of its SIGSEGV ($(tail -1 "$RESULTS/crash-supervision.log"))"; }
      sleep 0.1
    done
    grep -q "status 139" <(tail -2 "$RESULTS/crash-supervision.log") || { restore; fail "ride $ride: bluetoothd's exit was not a SIGSEGV: $(tail -2 "$RESULTS/crash-supervision.log" | head -1)"; }
    back=""
    while :; do
      if [ "$(count_lines "$log" "SF-Bike-0001 ready")" -gt "$ready" ]; then
        # When the daemon said so (its log is stamped as it writes), not when this loop looked:
        # in a loaded guest the look comes a second later and would skip the first samples.
        [ -n "$back" ] || back=$(grep "SF-Bike-0001 ready" "$log" | sed -n "$((ready + 1))p" | cut -d' ' -f1)
        line=$(first_after "$samples" "$back")
        [ -n "$line" ] && break
      fi
      awk -v s="$(seconds_since "$killed")" 'BEGIN { exit !(s > 90) }' && break
      sleep 0.2
    done
    if [ -n "${line:-}" ]; then
      took=$(awk -v a="$killed" -v b="${line%% *}" 'BEGIN { printf "%.1f", b - a }')
      times+=("$took")
      in_session=$(grep -o '"sessionId":"[^"]*"' <<< "$line" | cut -d'"' -f4)
      echo "ride $ride kill $kill_index: first sample again $took s after the kill, session ${in_session:-none}"
      timeline "$RESULTS/crash-timeline-$ride-$kill_index.txt" "$(awk -v k="$killed" 'BEGIN { print k - 1 }')" "${line%% *}"
      awk -v s="$took" 'BEGIN { exit !(s > 20) }' && missed+=("ride $ride kill $kill_index: samples again only $took s after bluetoothd's SIGSEGV (bar 20 s)")
      [ "$in_session" = "$session" ] || missed+=("ride $ride kill $kill_index: the first sample after the crash is in session '${in_session:-none}', not the ride's $session")
    else
      times+=(90)
      missed+=("ride $ride kill $kill_index: no sample within 90 s of bluetoothd's SIGSEGV: $(grep SF-Bike-0001 "$log" | tail -1 | cut -d' ' -f4-)")
      timeline "$RESULTS/crash-timeline-$ride-$kill_index.txt" "$(awk -v k="$killed" 'BEGIN { print k - 1 }')" "$(now)"
    fi
    line=""
    sleep 8
  done
  # The rider leaves: the bike switches off (its peripheral stops and its controller drops the link).
  kill "$sim"; wait "$sim" 2>/dev/null
  drop_links 1 > /dev/null
  wait_for_line "$log" "session $session finished on SF-Bike-0001" 120 \
    || missed+=("ride $ride: session $session did not end within 120 s of the bike switching off (disconnect_grace 60 s)")
  kill "$watcher" 2>/dev/null
  copies=0
  for _ in $(seq 1 60); do
    copies=$(backend_sessions | grep -o "\"session_id\":\"$session\"" | wc -l)
    [ "$copies" -ge 1 ] && break
    sleep 1
  done
  sleep 6   # one more upload round: a duplicate would show now
  answer=$(backend_sessions)
  copies=$(grep -o "\"session_id\":\"$session\"" <<< "$answer" | wc -l)
  total=$(grep -o '"session_id":"[^"]*"' <<< "$answer" | sort -u | wc -l)
  started=$(( $(count_lines "$log" "session .* started on SF-Bike-0001") - sessions_before ))
  echo "ride $ride: session $session; sessions started in the ride $started; at the backend: this one $copies time(s), $total session(s) in all"
  [ "$copies" = 1 ] || missed+=("ride $ride: the backend holds session $session $copies time(s), not once")
  [ "$started" = 1 ] || missed+=("ride $ride: $started sessions started on SF-Bike-0001 in one ride, not 1")
  [ "$total" = "$ride" ] || missed+=("ride $ride: the backend holds $total sessions after $ride ride(s)")
done
kill "$daemon"; wait "$daemon" 2>/dev/null
restore
crashes=$(count_lines "$RESULTS/crash-supervision.log" "status 139")
figure "bluetoothd SIGSEGVed $crashes time(s) in $rides ride(s) under ${CRASH_HOGS:-0} CPU hog(s) in the guest and started again each time by the drop-in's Restart=$restart; first sample after the kill: ${times[*]} s (median $(median "${times[@]}") s, bar 20 s)"
figure "backend: $(backend_sessions | grep -o '"session_id":"[^"]*"' | sort -u | wc -l) session(s) for $rides ride(s)"
report_missed crash "${missed[@]}"
