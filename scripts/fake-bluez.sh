#!/usr/bin/env bash
# The fake BlueZ (python-dbusmock + Tests/Fixtures/dbusmock/ftms_bluez.py) on the private bus of
# scripts/test-bus.sh.
#
#   scripts/fake-bluez.sh start DIR [JSON]   start the bus (if needed) and the fake, wait until it owns
#                                            org.bluez, print DBUS_SYSTEM_BUS_ADDRESS=…
#   scripts/fake-bluez.sh stop DIR           stop the fake (the bus keeps running: test-bus.sh stop DIR)
#   scripts/fake-bluez.sh selftest           fresh bus + fake in a temporary DIR, run
#                                            Tests/Fixtures/dbusmock/selftest.py against it, stop both
#
# JSON (optional) is passed to the template, e.g.
#   '{"adapter": "hci0", "machines": [{"address": "C0:11:22:33:44:01", "name": "SF-Bike-0001", "kind": "bike"}]}'
# The fake's call log goes to DIR/fake-bluez.log, its pid to DIR/fake-bluez.pid.
# Runs /usr/bin/python3 on purpose: python3-dbus, python3-gi and python3-dbusmock are Debian packages and
# a pyenv/venv python3 on PATH does not see them.
set -euo pipefail

die() { echo "fake-bluez: $*" >&2; exit 1; }

usage="usage: $0 start DIR [JSON] | stop DIR | selftest"
[ $# -ge 1 ] || die "$usage"
action=$1
if [ "$action" = selftest ]; then
  [ $# -eq 1 ] || die "$usage"
  dir=$(mktemp -d /tmp/fake-bluez-selftest.XXXXXX)
else
  [ $# -ge 2 ] && [ $# -le 3 ] || die "$usage"
  dir=$2
fi
params=${3:-}
case "$dir" in
  /*) ;;
  *) dir="$PWD/$dir" ;;
esac
dir=${dir%/}
root="$(cd "$(dirname "$0")/.." && pwd)"
template="$root/Tests/Fixtures/dbusmock/ftms_bluez.py"
python=/usr/bin/python3
pidfile="$dir/fake-bluez.pid"
logfile="$dir/fake-bluez.log"

# shellcheck source=lib/pids.sh
source "$(dirname "$0")/lib/pids.sh"
running_pid() { recorded_pid "$pidfile" "$template"; }

owner_answers() {
  timeout 2 dbus-send --bus="$DBUS_SYSTEM_BUS_ADDRESS" --dest=org.bluez --type=method_call --print-reply \
    / org.freedesktop.DBus.ObjectManager.GetManagedObjects >/dev/null 2>&1
}

start() {
  [ -x "$python" ] || die "$python not found (scripts/install-deps.sh)"
  "$python" -c 'import dbus, gi, dbusmock' 2>/dev/null \
    || die "$python lacks dbus/gi/dbusmock (scripts/install-deps.sh installs python3-dbus python3-gi python3-dbusmock)"
  local line
  line=$("$root/scripts/test-bus.sh" start "$dir") || exit 1
  export "${line?}"
  if running_pid >/dev/null && owner_answers; then
    echo "$line"
    return
  fi
  local args=(-m dbusmock --system --template "$template" -l "$logfile")
  [ -z "$params" ] || args+=(-p "$params")
  setsid "$python" "${args[@]}" < /dev/null > "$dir/fake-bluez.out" 2>&1 &
  local pid=$! i
  echo "$pid" > "$pidfile"
  for i in $(seq 1 100); do
    if owner_answers; then
      echo "$line"
      return
    fi
    alive "$pid" || die "the fake exited: $(tail -n 1 "$dir/fake-bluez.out")"
    sleep 0.05
  done
  kill "$pid" 2>/dev/null || true
  die "the fake did not own org.bluez within 5 s (see $dir/fake-bluez.out)"
}

stop() {
  local pid i
  if pid=$(running_pid); then
    kill -TERM "$pid" 2>/dev/null || true
    for i in $(seq 1 100); do
      alive "$pid" || break
      sleep 0.05
    done
    alive "$pid" && { kill -KILL "$pid" 2>/dev/null || true; }
  fi
  rm -f "$pidfile"
}

selftest() {
  local line rc=0
  line=$(start) || { "$root/scripts/test-bus.sh" stop "$dir" || true; exit 1; }
  export "${line?}"
  "$python" "$root/Tests/Fixtures/dbusmock/selftest.py" || rc=$?
  stop
  "$root/scripts/test-bus.sh" stop "$dir" || true
  [ "$rc" -ne 0 ] || rm -rf "$dir"
  [ "$rc" -eq 0 ] || echo "fake-bluez: selftest failed; the fake's log is in $dir/fake-bluez.log" >&2
  return "$rc"
}

case "$action" in
  start) start ;;
  stop) stop ;;
  selftest) selftest ;;
  *) die "$usage" ;;
esac
