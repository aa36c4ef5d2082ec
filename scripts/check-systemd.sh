#!/usr/bin/env bash
# Checks the service files as CI can, on a machine where systemd is not PID 1:
#
#   1. install: scripts/install.sh --no-build into a temporary DESTDIR, with a stand-in binary;
#      every file lands with its mode, the unit's ExecStart names $PREFIX/bin/ftms-bridge (also
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
#
# Prints one line per step; on failure, exits 1 with a one-line reason.
set -euo pipefail
cd "$(dirname "$0")/.."

MAX_EXPOSURE="${MAX_EXPOSURE:-1.5}"
fail() { echo "check-systemd: $*" >&2; exit 1; }
command -v systemd-analyze >/dev/null || fail "systemd-analyze is missing (apt-get install systemd)"
command -v systemd-sysusers >/dev/null || fail "systemd-sysusers is missing (apt-get install systemd)"

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
printf '#!/bin/sh\nexit 0\n' > "$work/ftms-bridge"   # a stand-in: no step runs the binary

# 1. install
stage="$work/stage"
DESTDIR="$stage" scripts/install.sh --no-build --binary "$work/ftms-bridge" > "$work/install.out" 2>&1 \
  || fail "install.sh into DESTDIR failed: $(tail -n 1 "$work/install.out")"
unit="$stage/etc/systemd/system/ftms-bridge.service"
for expected in 755:usr/local/bin/ftms-bridge 644:etc/systemd/system/ftms-bridge.service \
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
[ -x "$work/prefix/opt/ftms/bin/ftms-bridge" ] || fail "PREFIX=/opt/ftms did not install /opt/ftms/bin/ftms-bridge"
grep -qx 'ExecStart=/opt/ftms/bin/ftms-bridge run --config /etc/ftms-bridge/config.toml' "$work/prefix/etc/systemd/system/ftms-bridge.service" \
  || fail "PREFIX=/opt/ftms did not rewrite the unit's ExecStart"
echo "check-systemd: install: every file in place with its mode; ExecStart follows PREFIX; an existing config is kept"

# 2. sysusers
mkdir -p "$work/root/etc"
systemd-sysusers --root="$work/root" "$stage/etc/sysusers.d/ftms-bridge.conf" > "$work/sysusers.out" 2>&1 \
  || fail "systemd-sysusers rejected ftms-bridge.conf: $(tail -n 1 "$work/sysusers.out")"
grep -q '^ftms-bridge:x:[0-9]*:[0-9]*:.*:/usr/sbin/nologin$' "$work/root/etc/passwd" || fail "sysusers made no ftms-bridge system user with a nologin shell"
grep -qE '^bluetooth:x:[0-9]+:(.*,)?ftms-bridge(,.*)?$' "$work/root/etc/group" || fail "sysusers did not put ftms-bridge in group bluetooth"
echo "check-systemd: sysusers: user ftms-bridge (nologin), member of bluetooth"

# 3. verify
mkdir "$work/verify"
sed "s|^ExecStart=/usr/local/bin/ftms-bridge |ExecStart=$stage/usr/local/bin/ftms-bridge |" "$unit" > "$work/verify/ftms-bridge.service"
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
