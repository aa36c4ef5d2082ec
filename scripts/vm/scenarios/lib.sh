# Helpers every scenario sources. Scenarios run as root in the guest with FTMS_REPO, RESULTS, BIN.
# fail REASON: the one line run.sh reports, and a non-zero exit.
fail() { echo "FAIL: $*"; exit 1; }
# figure TEXT: a measured figure, collected into the summary.
figure() { echo "figure $*"; }
now() { awk '{print $1}' /proc/uptime; }
# uptime_stamp: each line of stdin prefixed with the guest's uptime when it was read (one process
# for the whole stream, so a chatty log costs no process per line), for timelines across logs.
# Perl (Debian's essential perl-base) hands each line on as it comes: mawk reads a pipe in blocks,
# and with -W interactive a byte per read, which lags seconds behind bluetoothd's debug log.
uptime_stamp() {
  perl -ne 'BEGIN { $| = 1 } open(my $u, "<", "/proc/uptime") or die; my ($t) = split(" ", scalar <$u>); close($u); print "$t $_"'
}
# Processes a scenario started, ended when it exits (by pid, never by name).
started_pids=()
# SIGTERM, up to 5 s to exit, then SIGKILL: a scenario that failed must never hang the guest.
cleanup() {
  local pid _
  for pid in "${started_pids[@]}"; do kill "$pid" 2>/dev/null; done
  for _ in $(seq 1 50); do
    local alive=0
    for pid in "${started_pids[@]}"; do kill -0 "$pid" 2>/dev/null && alive=1; done
    [ "$alive" = 0 ] && break
    sleep 0.1
  done
  # No `wait`: a child stuck in the kernel (a hung HCI command) survives SIGKILL, and waiting
  # for it would hang the guest; the scenario's exit leaves it to init.
  for pid in "${started_pids[@]}"; do kill -9 "$pid" 2>/dev/null; done
}
trap cleanup EXIT
# start_hogs N: N busy loops loading the guest's CPUs until the scenario ends (a quiet guest
# hides races, and a bar counts only if it holds under load).
start_hogs() {
  local _
  for _ in $(seq 1 "${1:-0}"); do
    bash -c 'while :; do :; done' &
    started_pids+=("$!")
  done
}
# The controllers start_peripheral serves machines on (readvertise).
peripheral_adapters=()

# start_peripheral ADAPTER KIND:NAME [ftms-sim flags...]: an SF machine served by ftms-sim
# --peripheral on ADAPTER through this guest's bluetoothd; waits for its ready line. Its log is
# RESULTS/peripheral-NAME.log (appended: several scenarios may start the same machine), each line
# stamped with the guest's uptime.
start_peripheral() {
  local adapter=$1 machine=$2; shift 2
  local name=${machine#*:} log="$RESULTS/peripheral-${machine#*:}.log"
  local ready; ready=$(mktemp)
  "$BIN/ftms-sim" --peripheral --adapter "$adapter" --machine "$machine" "$@" > "$ready" 2> >(uptime_stamp >> "$log") &
  started_pids+=($!); peripheral_adapters+=("$adapter")
  for _ in $(seq 1 100); do
    grep -q '^ready' "$ready" && { rm -f "$ready"; return 0; }
    kill -0 "${started_pids[-1]}" 2>/dev/null || fail "ftms-sim --peripheral $machine on $adapter exited: $(tail -1 "$log")"
    sleep 0.2
  done
  fail "ftms-sim --peripheral $machine on $adapter not ready in 20 s"
}

# seconds_since START: elapsed seconds with one decimal, from a now() reading.
seconds_since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }

# median N...: the median of the numbers given.
median() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else printf "%.2f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# restart_bluetoothd [-d LOG]: stops bluetoothd (SIGTERM, as systemctl restart does) and starts it
# again, logging to RESULTS/bluetoothd.log, or with -d its debug log to LOG.
restart_bluetoothd() {
  local pid flags=() log="$RESULTS/bluetoothd.log"
  [ "${1:-}" = -d ] && { flags=(-d); log=$2; }
  pid=$(cat /run/ftms-vm/bluetoothd.pid)
  kill "$pid"; while kill -0 "$pid" 2>/dev/null; do sleep 0.1; done
  /usr/libexec/bluetooth/bluetoothd -n "${flags[@]}" >> "$log" 2>&1 &
  echo $! > /run/ftms-vm/bluetoothd.pid
}

# controller_address INDEX: hciINDEX's own address, as mgmt gives it.
controller_address() { btmgmt --index "$1" info 2>/dev/null | awk '/addr/ { print $2; exit }'; }
# links_of INDEX: the addresses hciINDEX's kernel has a link to (mgmt Get Connections), a line each.
links_of() { btmgmt --index "$1" con 2>/dev/null | grep -oE '^([0-9A-F]{2}:){5}[0-9A-F]{2}'; }

# drop_links INDEX: the controller hciINDEX disconnects every central linked to it (as a machine
# does when it drops the link), and prints their addresses. All of them, not the first listed: a
# link another client left would otherwise take the drop while the daemon's own stayed up.
drop_links() {
  local centrals; centrals=$(links_of "$1")
  for central in $centrals; do btmgmt --index "$1" disconnect -t 1 "$central" > /dev/null; done
  echo $centrals
}

# wait_for_line FILE PATTERN SECONDS: waits until FILE has a line matching PATTERN (grep -E); 1 on timeout.
wait_for_line() {
  local deadline; deadline=$(awk -v n="$(now)" -v s="$3" 'BEGIN { print n + s }')
  until grep -qE "$2" "$1" 2>/dev/null; do
    awk -v n="$(now)" -v d="$deadline" 'BEGIN { exit !(n > d) }' && return 1
    sleep 0.2
  done
}

# daemon_on_bus LOG: waits (up to 120 s) for a just-started daemon to say it is on the system bus.
# A cold debug binary loads over 9p, and on a loaded host that alone took 20 s: a scenario's own
# bound then counts from here, so that it times the daemon and not the guest's start-up.
daemon_on_bus() {
  wait_for_line "$1" "connected to the system bus" 120 || fail "the daemon was not on the system bus within 120 s of its start: $(tail -1 "$1")"
}

# count_lines FILE PATTERN: lines of FILE matching PATTERN (grep -E), 0 when none.
count_lines() { grep -cE "$2" "$1" 2>/dev/null || true; }

# discovering ADAPTER: true/false, Adapter1.Discovering as bluetoothd reports it.
discovering() {
  dbus-send --system --print-reply --dest=org.bluez "/org/bluez/$1" org.freedesktop.DBus.Properties.Get \
    string:org.bluez.Adapter1 string:Discovering 2>/dev/null | awk '/boolean/ { print $3 }'
}

# report_missed SCENARIO BAR...: the bars a scenario missed fail it, or with FTMS_VM_MISSED=report
# (scripts/vm/test.sh's CI step) are printed, one line each, without failing it: btvirt and a
# guest serving both ends from one bluetoothd still miss some recoveries (docs/simulator.md).
report_missed() {
  local scenario=$1; shift
  [ $# -eq 0 ] && return 0
  if [ "${FTMS_VM_MISSED:-fail}" = report ]; then
    for bar in "$@"; do echo "$scenario: missed (reported): $bar"; done
  else
    fail "$(IFS=';'; echo "$*")"
  fi
}

# forget_devices ADAPTER...: bluetoothd removes every device object of each ADAPTER (RemoveDevice).
forget_devices() {
  local adapter device
  for adapter in "$@"; do
    for device in $(dbus-send --system --print-reply --dest=org.bluez / org.freedesktop.DBus.ObjectManager.GetManagedObjects 2>/dev/null \
      | grep -o "object path \"/org/bluez/$adapter/dev_[0-9A-F_]*\"" | sort -u | cut -d'"' -f2); do
      dbus-send --system --print-reply --dest=org.bluez "/org/bluez/$adapter" org.bluez.Adapter1.RemoveDevice "objpath:$device" > /dev/null 2>&1
    done
  done
}

# dump_objects FILE: bluetoothd's whole object tree (GetManagedObjects), for the record.
dump_objects() {
  dbus-send --system --print-reply --dest=org.bluez / org.freedesktop.DBus.ObjectManager.GetManagedObjects > "$1" 2>&1
}

# readvertise: each machine's controller without a link advertises again (LE Set Advertising
# Enable off and on, raw HCI beside bluetoothd). btvirt hands a scanner the advertisements only when
# its scan or their advertising starts, where a real radio repeats them every interval.
readvertise() {
  local adapter
  for adapter in "${peripheral_adapters[@]}"; do
    [ -n "$(links_of "${adapter#hci}")" ] && continue
    hcitool -i "$adapter" cmd 0x08 0x000a 00 > /dev/null 2>&1
    hcitool -i "$adapter" cmd 0x08 0x000a 01 > /dev/null 2>&1
  done
}

# scan_window OUT SCAN_FLAGS...: one `ftms-bridge scan --adapter hci0 SCAN_FLAGS` into OUT, its
# exit status returned; once hci0 is discovering the machines readvertise. btvirt sends every
# advertisement the instant scanning starts, and the kernel drops the reports that come before it
# has marked discovery as started, so without the second round a window can hear nothing at all.
scan_window() {
  local out=$1 scan; shift
  "$BIN/ftms-bridge" scan --adapter hci0 "$@" > "$out" 2>&1 &
  scan=$!
  while kill -0 "$scan" 2>/dev/null; do
    [ "$(discovering hci0)" = true ] && { readvertise; break; }
    sleep 0.2
  done
  wait "$scan"
}

# heard_by_gateway NAME...: scans hci0 (up to 3 windows of 5 s) until every NAME is listed, so
# bluetoothd knows them. Prints the number of windows it took. After a window that missed one,
# bluetoothd's object tree goes to RESULTS/heard-missed-SCENARIO-WINDOW.txt, for the reader of a
# failure (with bluez-dbus.txt and btmon.snoop).
heard_by_gateway() {
  local window name missing
  for window in 1 2 3; do
    scan_window "$RESULTS/heard.out" --timeout 5
    missing=0
    for name in "$@"; do grep -q "$name" "$RESULTS/heard.out" || missing=1; done
    [ "$missing" = 0 ] && { echo "$window"; return 0; }
    dump_objects "$RESULTS/heard-missed-$(basename "$0" .sh)-$window.txt"
  done
  echo "$window"; return 1
}

# connect_resolved DEVICE LOG: Device1.Connect on bluetoothd's DEVICE (an object path), then
# ServicesResolved within 30 s; the Connect's answer goes to LOG.
connect_resolved() {
  dbus-send --system --print-reply --reply-timeout=30000 --dest=org.bluez "$1" org.bluez.Device1.Connect > "$2" 2>&1 || return 1
  for _ in $(seq 1 150); do
    dbus-send --system --print-reply --dest=org.bluez "$1" org.freedesktop.DBus.Properties.Get \
      string:org.bluez.Device1 string:ServicesResolved 2>/dev/null | grep -q 'boolean true' && return 0
    sleep 0.2
  done
  return 1
}

# daemon_config FILE WORK STATE ADAPTERS [MACHINES_LINES [TABLES]]: a scenario's config for
# `ftms-bridge run`: machines.adapters = ADAPTERS (a TOML array), the store in STATE, the sockets
# in WORK, no Prometheus, debug log; MACHINES_LINES go under [machines], TABLES after it.
daemon_config() {
  mkdir -p "$3"
  cat > "$1" <<TOML
[machines]
adapters = $4
${5:-}
${6:-}
[state]
directory = "$3"
[metrics_socket]
path = "$2/metrics.sock"
[control_socket]
path = "$2/control.sock"
[prometheus]
enabled = false
[log]
level = "debug"
TOML
}
