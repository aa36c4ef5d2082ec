#!/usr/bin/env bash
# Checks the service files as CI can, on a machine where systemd is not PID 1:
#
#   1. install: scripts/install.sh --no-build into a temporary DESTDIR, with stand-in binaries;
#      every file lands with its mode, the unit's ExecStart names $PREFIX/sbin/ftms-bridged (also
#      for another PREFIX), and a second install keeps an existing config.toml.
#   2. sysusers: systemd-sysusers --root on an empty root creates the ftms-bridge user and puts
#      it in group bluetooth.
#   3. verify: `systemd-analyze verify` on the installed unit prints nothing at all. It only warns
#      (exit 0) on unknown keys and unparsable values, so any output fails the check. It also
#      insists that ExecStart's binary exists and is executable, so it reads a copy of the
#      installed unit whose ExecStart names the staged binary inside DESTDIR; that path is the
#      copy's one difference from the installed unit.
#   4. security: `systemd-analyze security --offline=true` rates the overall exposure at most
#      $MAX_EXPOSURE (default 1.5, "OK"); the figure is printed.
#   5. rehearsal, when there is a built daemon (--daemon PATH, default .build/debug/ftms-bridged)
#      and strace: `ftms-bridged` started the way the unit starts it, as far as that goes
#      without systemd: as user nobody, umask 0027, $STATE_DIRECTORY (0700) and
#      $RUNTIME_DIRECTORY (0751) made for it, $NOTIFY_SOCKET on a datagram socket read here,
#      WATCHDOG_USEC=2 s, and strace answering EPERM to every system call the unit's
#      SystemCallFilter= denies (SystemCallErrorNumber=EPERM). It must send READY=1, keep
#      sending WATCHDOG=1, make metrics.sock 0660 (control.sock 0600), and on SIGTERM send
#      STOPPING=1 and exit 0 within the unit's TimeoutStopSec=, without logging a complaint of
#      the filter (the unit's Environment= is passed, and libdispatch's log goes to stderr). The
#      denied calls it made and survived are printed. Namespaces, MemoryDenyWriteExecute= and the rest of the sandbox
#      still need a box where systemd is PID 1 (docs/systemd.md).
#
# Prints one line per step; on failure, exits 1 with a one-line reason.
set -euo pipefail
cd "$(dirname "$0")/.."

MAX_EXPOSURE="${MAX_EXPOSURE:-1.5}"
daemon=.build/debug/ftms-bridged
while [ $# -gt 0 ]; do
  case "$1" in
    --daemon) [ $# -ge 2 ] || { echo "check-systemd: --daemon needs a path" >&2; exit 1; }; daemon="$2"; shift 2 ;;
    *) echo "check-systemd: unknown argument '$1' (use --daemon PATH)" >&2; exit 1 ;;
  esac
done
fail() { echo "check-systemd: $*" >&2; exit 1; }
command -v systemd-analyze >/dev/null || fail "systemd-analyze is missing (apt-get install systemd)"
command -v systemd-sysusers >/dev/null || fail "systemd-sysusers is missing (apt-get install systemd)"

work="$(mktemp -d)"
background=()
tracer=""
cleanup() {
  # strace blocks fatal signals while it runs a program (-I3 with -o), so the daemon under it
  # is stopped first; strace then exits by itself.
  [ -z "$tracer" ] || kill -KILL $(pgrep -P "$tracer" || true) 2>/dev/null || true
  for pid in "${background[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${background[@]}"; do wait "$pid" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT
printf '#!/bin/sh\nexit 0\n' > "$work/ftms-bridge"   # stand-ins: no step runs the binaries
cp "$work/ftms-bridge" "$work/ftms-bridged"

# 1. install
stage="$work/stage"
DESTDIR="$stage" scripts/install.sh --no-build --binary "$work/ftms-bridge" > "$work/install.out" 2>&1 \
  || fail "install.sh into DESTDIR failed: $(tail -n 1 "$work/install.out")"
unit="$stage/etc/systemd/system/ftms-bridge.service"
for expected in 755:usr/local/bin/ftms-bridge 755:usr/local/sbin/ftms-bridged 644:etc/systemd/system/ftms-bridge.service \
                644:etc/systemd/system/ftms-bridge-dashboard.service 644:etc/systemd/system/bluetooth.service.d/ftms-bridge.conf \
                644:etc/sysusers.d/ftms-bridge.conf 640:etc/ftms-bridge/config.toml \
                644:usr/local/share/doc/ftms-bridge/systemd.md; do
  path="$stage/${expected#*:}"
  [ -f "$path" ] || fail "install.sh did not install /${expected#*:}"
  mode="$(stat -c %a "$path")"
  [ "$mode" = "${expected%%:*}" ] || fail "/${expected#*:} has mode $mode, not ${expected%%:*}"
done
cmp -s systemd/ftms-bridge.service "$unit" || fail "with the default PREFIX the installed unit differs from systemd/ftms-bridge.service"
cmp -s systemd/config.example.toml "$stage/etc/ftms-bridge/config.toml" || fail "the installed config.toml is not systemd/config.example.toml"
grep -q 'install: files are staged under DESTDIR' "$work/install.out" || fail "install.sh with DESTDIR did not say what to run on the target"
echo "# edited by the operator" > "$stage/etc/ftms-bridge/config.toml"
DESTDIR="$stage" scripts/install.sh --no-build --binary "$work/ftms-bridge" > "$work/install.out" 2>&1 \
  || fail "a second install.sh into the same DESTDIR failed: $(tail -n 1 "$work/install.out")"
[ "$(cat "$stage/etc/ftms-bridge/config.toml")" = "# edited by the operator" ] || fail "a second install replaced an existing config.toml"
PREFIX=/opt/ftms DESTDIR="$work/prefix" scripts/install.sh --no-build --binary "$work/ftms-bridge" > "$work/install.out" 2>&1 \
  || fail "install.sh with PREFIX=/opt/ftms failed: $(tail -n 1 "$work/install.out")"
[ -x "$work/prefix/opt/ftms/sbin/ftms-bridged" ] || fail "PREFIX=/opt/ftms did not install /opt/ftms/sbin/ftms-bridged"
grep -qx 'ExecStart=/opt/ftms/sbin/ftms-bridged --config /etc/ftms-bridge/config.toml' "$work/prefix/etc/systemd/system/ftms-bridge.service" \
  || fail "PREFIX=/opt/ftms did not rewrite the unit's ExecStart"
echo "check-systemd: install: every file in place with its mode; ExecStart follows PREFIX; an existing config is kept"

# 2. sysusers
mkdir -p "$work/root/etc"
systemd-sysusers --root="$work/root" "$stage/etc/sysusers.d/ftms-bridge.conf" > "$work/sysusers.out" 2>&1 \
  || fail "systemd-sysusers rejected ftms-bridge.conf: $(tail -n 1 "$work/sysusers.out")"
grep -q '^ftms-bridge:x:[0-9]*:[0-9]*:.*:/usr/sbin/nologin$' "$work/root/etc/passwd" || fail "sysusers made no ftms-bridge system user with a nologin shell"
grep -qE '^bluetooth:x:[0-9]+:(.*,)?ftms-bridge(,.*)?$' "$work/root/etc/group" || fail "sysusers did not put ftms-bridge in group bluetooth"
grep -qE '^ftms-bridge:x:[0-9]+:(.*,)?ftms-bridge-dashboard(,.*)?$' "$work/root/etc/group" || fail "sysusers did not put ftms-bridge-dashboard in group ftms-bridge"
echo "check-systemd: sysusers: user ftms-bridge (nologin), member of bluetooth; ftms-bridge-dashboard, member of ftms-bridge"

# 3. verify
mkdir "$work/verify"
sed "s|^ExecStart=/usr/local/sbin/ftms-bridged |ExecStart=$stage/usr/local/sbin/ftms-bridged |" "$unit" > "$work/verify/ftms-bridge.service"
[ "$(diff "$unit" "$work/verify/ftms-bridge.service" | grep -c '^[<>]')" -eq 2 ] || fail "the verify copy differs from the installed unit in more than ExecStart"
if ! systemd-analyze verify "$work/verify/ftms-bridge.service" > "$work/verify.out" 2>&1; then
  fail "systemd-analyze verify failed: $(head -n 1 "$work/verify.out")"
fi
[ ! -s "$work/verify.out" ] || fail "systemd-analyze verify printed: $(head -n 1 "$work/verify.out")"
echo "check-systemd: verify: clean (no output)"

# 4. security
systemd-analyze security --offline=true "$unit" > "$work/security.out" 2> "$work/security.err" \
  || fail "systemd-analyze security failed: $(head -n 1 "$work/security.err")"
[ ! -s "$work/security.err" ] || fail "systemd-analyze security printed on stderr: $(head -n 1 "$work/security.err")"
exposure="$(sed -n 's/.*Overall exposure level for ftms-bridge.service: \([0-9.]*\) .*/\1/p' "$work/security.out")"
[ -n "$exposure" ] || fail "systemd-analyze security printed no overall exposure level"
awk -v e="$exposure" -v max="$MAX_EXPOSURE" 'BEGIN { exit !(e <= max) }' \
  || fail "security exposure $exposure is above $MAX_EXPOSURE: $(grep '✗' "$work/security.out" | tr -s ' ' | head -n 5 | paste -sd ';')"
echo "check-systemd: security: overall exposure $exposure (at most $MAX_EXPOSURE) $(sed -n 's/.*Overall exposure level for ftms-bridge.service: [0-9.]* \([A-Z]*\).*/\1/p' "$work/security.out")"
# The dashboard's unit: verified and rated the same way.
dashboard_unit="$stage/etc/systemd/system/ftms-bridge-dashboard.service"
sed "s|^ExecStart=/usr/local/bin/ftms-bridge |ExecStart=$stage/usr/local/bin/ftms-bridge |" "$dashboard_unit" > "$work/verify/ftms-bridge-dashboard.service"
systemd-analyze verify "$work/verify/ftms-bridge-dashboard.service" > "$work/verify-dashboard.out" 2>&1 \
  || fail "systemd-analyze verify of the dashboard unit failed: $(head -n 1 "$work/verify-dashboard.out")"
[ ! -s "$work/verify-dashboard.out" ] || fail "systemd-analyze verify of the dashboard unit printed: $(head -n 1 "$work/verify-dashboard.out")"
systemd-analyze security --offline=true "$dashboard_unit" > "$work/security-dashboard.out" 2>&1 \
  || fail "systemd-analyze security of the dashboard unit failed: $(head -n 1 "$work/security-dashboard.out")"
dashboard_exposure="$(sed -n 's/.*Overall exposure level for ftms-bridge-dashboard.service: \([0-9.]*\) .*/\1/p' "$work/security-dashboard.out")"
[ -n "$dashboard_exposure" ] || fail "systemd-analyze security printed no exposure for the dashboard unit"
awk -v e="$dashboard_exposure" -v max="$MAX_EXPOSURE" 'BEGIN { exit !(e <= max) }' \
  || fail "the dashboard unit's exposure $dashboard_exposure is above $MAX_EXPOSURE"
echo "check-systemd: dashboard unit: verify clean, exposure $dashboard_exposure (at most $MAX_EXPOSURE)"
# bluetooth.service's drop-in: verified on a stand-in unit beside it (verify reads the drop-in
# directory next to the unit it is given), so a misspelt key, which systemd only warns about
# and ignores, fails here; scripts/deb-test.sh checks it in effect on Debian 12's own unit.
mkdir -p "$work/verify/bluetooth.service.d"
printf '[Unit]\nDescription=bluetoothd stand-in\n[Service]\nType=dbus\nBusName=org.bluez\nExecStart=/bin/true\n' > "$work/verify/bluetooth.service"
cp "$stage/etc/systemd/system/bluetooth.service.d/ftms-bridge.conf" "$work/verify/bluetooth.service.d/"
systemd-analyze verify "$work/verify/bluetooth.service" > "$work/verify-bluetooth.out" 2>&1 \
  || fail "systemd-analyze verify of bluetooth.service with the drop-in failed: $(head -n 1 "$work/verify-bluetooth.out")"
[ ! -s "$work/verify-bluetooth.out" ] || fail "systemd-analyze verify of bluetooth.service's drop-in printed: $(head -n 1 "$work/verify-bluetooth.out")"
grep -qx 'Restart=on-failure' "$work/verify/bluetooth.service.d/ftms-bridge.conf" || fail "bluetooth.service's drop-in does not set Restart=on-failure"
echo "check-systemd: bluetooth.service drop-in: verify clean, Restart=on-failure"

# 5. rehearsal
if [ ! -x "$daemon" ] || ! command -v strace >/dev/null || ! id -u nobody >/dev/null 2>&1 || [ "$(id -u)" -ne 0 ]; then
  echo "check-systemd: rehearsal: skipped (needs root, user nobody, strace and a built daemon at $daemon)"
  exit 0
fi
daemon="$(cd "$(dirname "$daemon")" && pwd)/$(basename "$daemon")"   # the daemon runs from another directory
denied="$(python3 - "$unit" <<'PY'
import subprocess, sys
listing = subprocess.run(["systemd-analyze", "syscall-filter"], capture_output=True, text=True, check=True).stdout
groups, current = {}, None
for line in listing.splitlines():
    word = line.strip().split(" ")[0]
    if not word or word.startswith("#"):
        continue
    if not line.startswith(" "):
        current = groups.setdefault(word, [])
    elif current is not None:
        current.append(word)
def expand(name, seen=()):
    if not name.startswith("@"):
        return {name}
    return set().union(*(expand(member, seen + (name,)) for member in groups.get(name, []) if member not in seen))
lines = [l.split("=", 1)[1].split() for l in open(sys.argv[1]) if l.startswith("SystemCallFilter=")]
if not lines or lines[0][0].startswith("~"):
    sys.exit("the rehearsal wants an allow-list SystemCallFilter= first")
allowed = set()
for items in lines:
    remove = items[0].startswith("~")
    names = set().union(*(expand(item.lstrip("~")) for item in items))
    allowed = allowed - names if remove else allowed | names
candidates = sorted(expand("@known") - allowed)
# strace knows the names of this architecture (and a few others); keep those it accepts.
known = [c for c in candidates if subprocess.run(["strace", "-e", "trace=" + c, "-o", "/dev/null", "true"], capture_output=True).returncode == 0]
print(",".join(known))
PY
)" || fail "rehearsal: could not work out the system calls the unit denies"
[ -n "$denied" ] || fail "rehearsal: the unit denies no system call strace knows"
rehearsal="$work/rehearsal"
watchdog_usec=4000000   # pings every 2 s; a gap of 4 s would be a restart
mkdir -p "$rehearsal/state" "$rehearsal/run"
chmod 0711 "$work"
chmod 0755 "$rehearsal"
chown nobody "$rehearsal/state" "$rehearsal/run"
chmod 0700 "$rehearsal/state"
chmod 0751 "$rehearsal/run"
printf '[prometheus]\nenabled = false\n\n[bluetooth]\nbus_address = "unix:path=%s/no-bus"\n' "$rehearsal" > "$rehearsal/config.toml"
chmod 0644 "$rehearsal/config.toml"
python3 -u - "$rehearsal/notify" > "$rehearsal/notify.log" <<'PY' &
import os, socket, sys, time
receiver = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
receiver.bind(sys.argv[1])
os.chmod(sys.argv[1], 0o666)
print("BOUND")
while True:
    message = receiver.recv(8192).decode()
    print("%.3f %r" % (time.monotonic(), message))
PY
background+=($!)
for _ in $(seq 1 50); do grep -q BOUND "$rehearsal/notify.log" && break; sleep 0.1; done
grep -q BOUND "$rehearsal/notify.log" || fail "rehearsal: the stand-in notify socket did not come up"
# The unit's Environment= as systemd passes it, over LIBDISPATCH_LOG=stderr: libdispatch logs
# to syslog (the journal, under systemd), and here its complaints must land in daemon.log.
read -r -a unit_environment <<< "$(sed -n 's/^Environment=//p' "$unit" | tr '\n' ' ')"
(
  cd "$rehearsal"
  umask 0027
  exec env -i PATH=/usr/bin:/bin HOME="$rehearsal/state" NOTIFY_SOCKET="$rehearsal/notify" WATCHDOG_USEC="$watchdog_usec" \
    STATE_DIRECTORY="$rehearsal/state" RUNTIME_DIRECTORY="$rehearsal/run" LIBDISPATCH_LOG=stderr "${unit_environment[@]}" \
    strace -u nobody -f -qq --seccomp-bpf -o "$rehearsal/strace.log" -e trace="$denied" -e inject="$denied":error=EPERM \
    "$daemon" --config "$rehearsal/config.toml"
) > "$rehearsal/daemon.log" 2>&1 &
tracer=$!
background+=("$tracer")
waited() { # waited SECONDS CONDITION...: polls the condition every 0.1 s
  local tenths=$(($1 * 10)); shift
  for _ in $(seq 1 "$tenths"); do "$@" && return 0; kill -0 "$tracer" 2>/dev/null || return 1; sleep 0.1; done
  "$@"
}
pings_after_ready() { [ "$(sed -n '/READY=1/,$p' "$rehearsal/notify.log" | grep -c 'WATCHDOG=1')" -ge 3 ]; }
# The longest silence between READY=1 and the pings after it, in microseconds.
longest_gap() { sed -n '/READY=1/,$p' "$rehearsal/notify.log" | grep -E "READY=1|WATCHDOG=1" \
  | awk '{ if (NR > 1 && $1 - last > gap) gap = $1 - last; last = $1 } END { printf "%d", gap * 1000000 }'; }
last_log() { tail -n 1 "$rehearsal/daemon.log"; }
waited 60 grep -q "READY=1" "$rehearsal/notify.log" || fail "rehearsal: no READY=1 from the daemon: $(last_log)"
waited 30 pings_after_ready || fail "rehearsal: the daemon sent READY=1 but then fewer than 3 WATCHDOG=1: $(last_log)"
gap="$(longest_gap)"
[ "$gap" -lt "$watchdog_usec" ] || fail "rehearsal: $((gap / 1000)) ms without WATCHDOG=1, WATCHDOG_USEC is $((watchdog_usec / 1000)) ms: systemd would restart it"
grep -q "STATUS=" "$rehearsal/notify.log" || fail "rehearsal: no STATUS= line from the daemon"
[ "$(stat -c %a "$rehearsal/run/metrics.sock" 2>/dev/null)" = 660 ] || fail "rehearsal: \$RUNTIME_DIRECTORY/metrics.sock is missing or not 0660"
[ ! -e "$rehearsal/run/control.sock" ] || [ "$(stat -c %a "$rehearsal/run/control.sock")" = 600 ] || fail "rehearsal: control.sock is not 0600"
daemon_pid="$(pgrep -P "$tracer" -u nobody || true)"
[ -n "$daemon_pid" ] || fail "rehearsal: cannot find the daemon under strace"
kill -TERM "$daemon_pid"
stop_limit="$(sed -n 's/^TimeoutStopSec=\([0-9]*\)s$/\1/p' "$unit")"
exited() { ! kill -0 "$tracer" 2>/dev/null; }
waited "${stop_limit:-20}" exited || fail "rehearsal: the daemon did not exit within TimeoutStopSec=${stop_limit:-20}s of SIGTERM"
status=0
wait "$tracer" || status=$?
[ "$status" -eq 0 ] || fail "rehearsal: the daemon exited $status after SIGTERM: $(last_log)"
sleep 0.2
grep -q "STOPPING=1" "$rehearsal/notify.log" || fail "rehearsal: no STOPPING=1 before the daemon exited"
# The sandbox makes no noise: libdispatch says "Failed to set thread priority" for each worker
# thread whose setpriority(2) the filter denies (GRDB's queues start one every few seconds).
noise="$(grep -c "Failed to set thread priority" "$rehearsal/daemon.log" || true)"
[ "$noise" -eq 0 ] || fail "rehearsal: the daemon logged $noise complaints of the filter: $(grep -m 1 "Failed to set thread priority" "$rehearsal/daemon.log")"
survived="$(awk '/\(INJECTED\)$/ { split($2, call, "("); count[call[1]]++ }
  END { for (name in count) { printf "%s%s x%d", sep, name, count[name]; sep = ", " } }' "$rehearsal/strace.log")"
echo "check-systemd: rehearsal: READY=1, STATUS=, WATCHDOG=1 (longest gap $((gap / 1000)) ms of $((watchdog_usec / 1000))), STOPPING=1 and exit 0 on SIGTERM, as nobody with the filter's EPERMs (denied calls made: ${survived:-none})"
