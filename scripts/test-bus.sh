#!/usr/bin/env bash
# A private, system-bus-like dbus-daemon for tests (in place of the real system bus, which the fake BlueZ
# must not touch).
#
#   scripts/test-bus.sh start DIR    start it (or find it running) and print DBUS_SYSTEM_BUS_ADDRESS=…
#   scripts/test-bus.sh stop DIR     stop it (nothing to do if it is not running)
#   scripts/test-bus.sh status DIR   exit 0 and print the address if it is running, else exit 1
#
# Usage:  export "$(scripts/test-bus.sh start /tmp/ftms-bus)"
#
# DIR gets system-bus.conf (<type>system</type>, <listen>unix:path=DIR/system_bus_socket</listen>, a
# permissive policy: anyone may own any name, send anywhere and eavesdrop), dbus-daemon.pid and
# dbus-daemon.log. Quiet on success apart from the address line; one-line errors on stderr, exit 1.
set -euo pipefail

die() { echo "test-bus: $*" >&2; exit 1; }

[ $# -eq 2 ] || die "usage: $0 start|stop|status DIR"
action=$1
dir=$2
case "$dir" in
  /*) ;;
  *) dir="$PWD/$dir" ;;
esac
# A D-Bus address only carries [-0-9A-Za-z_/.] unescaped; keep DIR to those so the address needs no escaping.
[[ "$dir" =~ ^[-0-9A-Za-z_/.]+$ ]] || die "DIR must be made of [-0-9A-Za-z_/.] only: $dir"
dir=${dir%/}

socket="$dir/system_bus_socket"
config="$dir/system-bus.conf"
pidfile="$dir/dbus-daemon.pid"
logfile="$dir/dbus-daemon.log"
address="unix:path=$socket"

# shellcheck source=lib/pids.sh
source "$(dirname "$0")/lib/pids.sh"
running_pid() { recorded_pid "$pidfile" "--config-file=$config"; }

# Whether the bus answers a call (not only whether the socket file exists).
bus_answers() {
  [ -S "$socket" ] || return 1
  timeout 2 dbus-send --bus="$address" --dest=org.freedesktop.DBus --type=method_call --print-reply \
    /org/freedesktop/DBus org.freedesktop.DBus.GetId >/dev/null 2>&1
}

start() {
  command -v dbus-daemon >/dev/null || die "dbus-daemon not found (scripts/install-deps.sh installs package dbus)"
  command -v dbus-send >/dev/null || die "dbus-send not found (scripts/install-deps.sh installs package dbus)"
  mkdir -p "$dir" || die "cannot create $dir"
  if running_pid >/dev/null; then
    bus_answers || die "dbus-daemon $(running_pid) is running for $dir but does not answer on $socket"
    echo "DBUS_SYSTEM_BUS_ADDRESS=$address"
    return
  fi
  rm -f "$socket" "$pidfile"
  cat > "$config" <<EOF
<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<!-- Written by scripts/test-bus.sh: a private system-like bus for tests. -->
<busconfig>
  <type>system</type>
  <listen>$address</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow user="*"/>
    <allow own="*"/>
    <allow send_destination="*" eavesdrop="true"/>
    <allow eavesdrop="true"/>
  </policy>
</busconfig>
EOF
  local out="$dir/dbus-daemon.out"
  : > "$out"
  # setsid: not killed with the caller's terminal/process group; all three fds redirected so that
  # `$(scripts/test-bus.sh start DIR)` returns instead of waiting for the daemon to close our stdout.
  setsid dbus-daemon --config-file="$config" --nofork --print-address=1 --print-pid=1 \
    < /dev/null > "$out" 2> "$logfile" 9>&- &
  local launcher=$!
  local pid="" i
  for i in $(seq 1 100); do
    # --print-address then --print-pid, one line each, on the same fd
    pid=$(sed -n 2p "$out" 2>/dev/null || true)
    if [[ "$pid" =~ ^[0-9]+$ ]] && bus_answers; then
      break
    fi
    if ! alive "$launcher" && [ -z "$pid" ]; then
      die "dbus-daemon exited at start: $(grep -v 'Failed to set fd limit' "$logfile" | tail -n 1)"
    fi
    pid=""
    sleep 0.05
  done
  [ -n "$pid" ] || { kill "$launcher" 2>/dev/null || true; die "dbus-daemon did not answer on $socket within 5 s (see $logfile)"; }
  echo "$pid" > "$pidfile"
  rm -f "$out"
  echo "DBUS_SYSTEM_BUS_ADDRESS=$address"
}

stop() {
  local pid i
  if pid=$(running_pid); then
    kill -TERM "$pid" 2>/dev/null || true
    for i in $(seq 1 100); do
      alive "$pid" || break
      sleep 0.05
    done
    if alive "$pid"; then
      kill -KILL "$pid" 2>/dev/null || true
      sleep 0.1
      alive "$pid" && die "dbus-daemon $pid does not stop"
    fi
  fi
  rm -f "$pidfile" "$socket" "$dir/dbus-daemon.out"
}

status() {
  running_pid >/dev/null && bus_answers || return 1
  echo "DBUS_SYSTEM_BUS_ADDRESS=$address"
}

command -v flock >/dev/null && [ "$action" != status ] && {
  mkdir -p "$dir" || die "cannot create $dir"
  exec 9> "$dir/.test-bus.lock"
  flock -w 10 9 || die "another test-bus.sh holds $dir/.test-bus.lock"
}
case "$action" in
  start) start ;;
  stop) stop ;;
  status) status ;;
  *) die "usage: $0 start|stop|status DIR" ;;
esac
