#!/usr/bin/env bash
# Installs ftms-bridge as a systemd service (docs/systemd.md):
#
#   $PREFIX/bin/ftms-bridge                   the operator's commands (built in release unless --binary is given)
#   $PREFIX/sbin/ftms-bridged                 the daemon, from beside that binary
#   $UNITDIR/ftms-bridge.service              the unit, its ExecStart pointing at the daemon above
#   $UNITDIR/ftms-bridge-dashboard.service    the dashboard's own unit (not enabled)
#   $UNITDIR/bluetooth.service.d/ftms-bridge.conf   bluetoothd restarted when it crashes (Debian's unit does not)
#   $SYSUSERSDIR/ftms-bridge.conf             the static service users: ftms-bridge in group bluetooth,
#                                             ftms-bridge-dashboard in group ftms-bridge
#   /etc/ftms-bridge/config.toml              systemd/config.example.toml, only if there is none yet
#                                             (0640 root:ftms-bridge)
#   $PREFIX/share/doc/ftms-bridge/systemd.md  what the unit's Documentation= points at
#
# Usage: [PREFIX=/usr/local] [DESTDIR=] [UNITDIR=/etc/systemd/system] [SYSUSERSDIR=/etc/sysusers.d]
#        scripts/install.sh [--no-build] [--binary PATH]
#
# The unit and the sysusers entry go below /etc by default: those directories are searched
# whatever PREFIX is, so ExecStart and the unit can never disagree about where the binary is.
# DESTDIR stages the whole tree (for a package, or a test) and then nothing is run and nothing
# is chowned. With no DESTDIR and systemd as PID 1 it creates the user (systemd-sysusers) and
# reloads systemd; otherwise it prints what to run. It never enables or starts the service.
set -euo pipefail
cd "$(dirname "$0")/.."

fail() { echo "install: $*" >&2; exit 1; }

build=yes
binary=""
while [ $# -gt 0 ]; do
  case "$1" in
    --no-build) build=no ;;
    --binary) [ $# -ge 2 ] || fail "--binary needs a path"; binary="$2"; build=no; shift ;;
    -h|--help) sed -n '2,19p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) fail "unknown argument '$1' (try --help)" ;;
  esac
  shift
done

PREFIX="${PREFIX:-/usr/local}"
DESTDIR="${DESTDIR:-}"
UNITDIR="${UNITDIR:-/etc/systemd/system}"
SYSUSERSDIR="${SYSUSERSDIR:-/etc/sysusers.d}"
CONFDIR=/etc/ftms-bridge   # fixed: ConfigurationDirectory=ftms-bridge is always /etc/ftms-bridge
for name in PREFIX UNITDIR SYSUSERSDIR; do
  value="${!name}"
  [[ "$value" == /* ]] || fail "$name must be an absolute path, not '$value'"
  [[ "$value" =~ ^[A-Za-z0-9/._+-]+$ ]] || fail "$name='$value' has characters a unit path should not have"
done
[ -z "$DESTDIR" ] || [[ "$DESTDIR" == /* ]] || fail "DESTDIR must be an absolute path, not '$DESTDIR'"
[ -n "$DESTDIR" ] || [ "$(id -u)" -eq 0 ] || fail "installing into / needs root (sudo -E $0, or set DESTDIR to stage)"
[ -f systemd/config.example.toml ] || fail "systemd/config.example.toml is missing from the source tree"

if [ "$build" = yes ]; then
  echo "install: building ftms-bridge (release)" >&2
  swift build -c release --product ftms-bridge >&2
  swift build -c release --product ftms-bridged >&2
  binary="$(swift build -c release --show-bin-path)/ftms-bridge"
elif [ -z "$binary" ]; then
  binary=.build/release/ftms-bridge
fi
[ -f "$binary" ] || fail "no binary at $binary (build it, or pass --binary PATH)"
daemon_binary="$(dirname "$binary")/ftms-bridged"
[ -f "$daemon_binary" ] || fail "no daemon at $daemon_binary (ftms-bridged is built beside ftms-bridge)"

bin="$PREFIX/bin/ftms-bridge"
sbin="$PREFIX/sbin/ftms-bridged"
doc="$PREFIX/share/doc/ftms-bridge"
install -D -m 0755 "$binary" "$DESTDIR$bin"
install -D -m 0755 "$daemon_binary" "$DESTDIR$sbin"
install -D -m 0644 docs/systemd.md "$DESTDIR$doc/systemd.md"
install -D -m 0644 systemd/ftms-bridge.sysusers "$DESTDIR$SYSUSERSDIR/ftms-bridge.conf"
install -d -m 0755 "$DESTDIR$UNITDIR"
for unit in ftms-bridge.service ftms-bridge-dashboard.service; do
  sed -e "s|/usr/local/bin/ftms-bridge|$bin|g" -e "s|/usr/local/sbin/ftms-bridged|$sbin|g" \
    -e "s|/usr/local/share/doc/ftms-bridge|$doc|g" "systemd/$unit" > "$DESTDIR$UNITDIR/$unit"
  chmod 0644 "$DESTDIR$UNITDIR/$unit"
done
install -D -m 0644 systemd/bluetooth-restart.conf "$DESTDIR$UNITDIR/bluetooth.service.d/ftms-bridge.conf"
grep -qx "ExecStart=$sbin --config $CONFDIR/config.toml" "$DESTDIR$UNITDIR/ftms-bridge.service" \
  || fail "the installed unit's ExecStart does not name $sbin"

config="$CONFDIR/config.toml"
install -d -m 0755 "$DESTDIR$CONFDIR"
if [ -e "$DESTDIR$config" ]; then
  echo "install: kept the existing $config" >&2
  new_config=no
else
  install -m 0640 systemd/config.example.toml "$DESTDIR$config"
  new_config=yes
fi

echo "install: installed $bin, $sbin, $UNITDIR/ftms-bridge.service, $UNITDIR/bluetooth.service.d/ftms-bridge.conf, $SYSUSERSDIR/ftms-bridge.conf${DESTDIR:+ under $DESTDIR}" >&2
if [ -z "$DESTDIR" ] && [ -d /run/systemd/system ]; then
  systemd-sysusers "$SYSUSERSDIR/ftms-bridge.conf"
  [ "$new_config" = no ] || chown root:ftms-bridge "$config"
  systemctl daemon-reload
  echo "install: done; start it with: systemctl enable --now ftms-bridge"
else
  [ -n "$DESTDIR" ] && why="files are staged under DESTDIR" || why="systemd is not PID 1 here"
  echo "install: $why; on the target, run:"
  echo "  systemd-sysusers $SYSUSERSDIR/ftms-bridge.conf"
  [ "$new_config" = no ] || echo "  chown root:ftms-bridge $config"
  echo "  systemctl daemon-reload"
  echo "  systemctl enable --now ftms-bridge"
fi
