#!/usr/bin/env bash
# Installs the Debian package into a clean Debian 12 system with no Swift toolchain and checks
# it as an operator would (docs/systemd.md, "The Debian package"):
#
#   0. the root file system: debootstrap bookworm (minbase, systemd, dbus, bluez, apt's lists),
#      built once into ${FTMS_BRIDGE_CACHE:-/var/cache/ftms-bridge}/deb-rootfs and reused; the
#      package's Depends are pre-installed there, so every later run is offline;
#   1. two packages from this tree (scripts/package-deb.sh: REV 1, and REV 2 for the upgrade);
#      the Depends line names only packages of Debian's archive (apt-cache policy in the root);
#   2. the root booted with `systemd-nspawn --boot --ephemeral` (the cache stays clean), with
#      bluetooth.service masked: ftms-sim plays org.bluez on the container's system bus;
#   3. `apt-get install ./ftms-bridge_V-1_ARCH.deb` (fetching nothing) → `systemctl is-active
#      ftms-bridge` is active (timed: the bar is 60 s); the daemon runs as user ftms-bridge
#      with no capabilities, NoNewPrivs and a seccomp filter; both binaries load with no
#      toolchain (ldd: the Swift runtime from the package's /usr/lib/ftms-bridge, everything
#      else from Debian's library directories, nothing missing);
#      `ftms-bridge --version` and `ftms-bridge doctor --json` work; files where Debian wants them;
#   4. reinstall: the daemon restarts and an operator's edit of config.toml survives;
#   5. upgrade mid-ride: ftms-backend on loopback, `ftms-bridge login`, one simulated bike
#      riding; `apt-get install` of REV 2 in the middle of the session restarts the daemon, the
#      session continues under the same id, and after --stop the backend holds it exactly once
#      with its full distance (the bike's odometer, which started at 0 with the ride);
#   3b. bluetooth.service has the package's drop-in in effect (Restart=on-failure, RestartSec=2s,
#      no start limit: `systemctl show`), and doctor's "bluetoothd restart" check is ok;
#   6. remove: the service stops, sessions and config stay, bluetooth.service is Debian's own
#      again (Restart=no); purge with a session not uploaded
#      (the backend gone, a new ride open) keeps /var/lib/ftms-bridge and says so in one line,
#      and removes /etc/ftms-bridge.
#
# The test tools (ftms-sim, ftms-backend, from --tools, default .build/debug) and the host's
# Swift runtime are bind-mounted read-only under /mnt/ftms-test, reached only through
# LD_LIBRARY_PATH by those tools: nothing of them is at /opt/swift or in the package.
#
# Usage: scripts/deb-test.sh [--no-build] [--tools DIR] [--keep]
#   --no-build  use the packages already in .build/deb (REV 1 and 2)
#   --debug     package the debug build (scripts/package-deb.sh --debug): what scripts/test.sh does
# Prints one line per step and `deb-test: PASS` (exit 0) or `deb-test: FAIL: why` (exit 1).
set -euo pipefail
cd "$(dirname "$0")/.."
repo="$(pwd)"

build=yes
package_flags=()
tools=.build/debug
keep=no
while [ $# -gt 0 ]; do
  case "$1" in
    --no-build) build=no ;;
    --debug) package_flags=(--debug) ;;
    --tools) [ $# -ge 2 ] || { echo "deb-test: --tools needs a directory" >&2; exit 1; }; tools="$2"; shift ;;
    --keep) keep=yes ;;
    -h|--help) sed -n '2,33p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "deb-test: unknown argument '$1' (try --help)" >&2; exit 1 ;;
  esac
  shift
done

work="$(mktemp -d /tmp/ftms-deb-test.XXXXXX)"
fail() { echo "deb-test: FAIL: $* (logs in $work)"; keep=yes; exit 1; }
step() { echo "deb-test: $*"; }
now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }
began="$(now)"

[ "$(id -u)" -eq 0 ] || fail "needs root (debootstrap, systemd-nspawn)"
for tool in debootstrap systemd-nspawn nsenter dpkg-deb lintian python3; do
  command -v "$tool" >/dev/null || fail "$tool is missing (scripts/install-deps.sh installs it)"
done
for tool in ftms-sim ftms-backend; do
  [ -x "$tools/$tool" ] || fail "no $tools/$tool (swift build first, or --tools DIR)"
done
tools="$(cd "$tools" && pwd)"
swift_root="$(dirname "$(dirname "$(dirname "$(readlink -f "$(command -v swift)")")")")"
[ -d "$swift_root/usr/lib/swift/linux" ] || fail "cannot find the Swift runtime for the test tools under $swift_root"

nspawn=""
cleanup() {
  if [ -n "$nspawn" ] && kill -0 "$nspawn" 2>/dev/null; then
    kill -TERM "$nspawn" 2>/dev/null || true   # nspawn powers the container off
    for _ in $(seq 1 100); do kill -0 "$nspawn" 2>/dev/null || break; sleep 0.2; done
    kill -KILL "$nspawn" 2>/dev/null || true
  fi
  exec 7>&- 2>/dev/null || true
  [ "$keep" = yes ] || rm -rf "$work"
}
trap cleanup EXIT

# 0. The root file system, cached.
cache="${FTMS_BRIDGE_CACHE:-/var/cache/ftms-bridge}"
rootfs="$cache/deb-rootfs"
base_packages="systemd,systemd-sysv,dbus,bluez,libdbus-1-3,libbluetooth3,libmosquitto1,libsqlite3-0,libstdc++6,libgcc-s1,zlib1g"
stamp="$rootfs/etc/ftms-bridge-deb-rootfs"
in_root() { chroot "$rootfs" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 DEBIAN_FRONTEND=noninteractive "$@"; }
if [ ! -f "$stamp" ] || [ "$(head -n 1 "$stamp")" != "$base_packages" ]; then
  started="$(now)"
  step "building the Debian 12 root file system in $rootfs (once)"
  mkdir -p "$cache"
  rm -rf "$rootfs.tmp"
  debootstrap --variant=minbase --include="$base_packages" bookworm "$rootfs.tmp" http://deb.debian.org/debian \
    > "$work/debootstrap.log" 2>&1 || fail "debootstrap failed: $(tail -n 1 "$work/debootstrap.log")"
  cp /etc/resolv.conf "$rootfs.tmp/etc/resolv.conf"
  chroot "$rootfs.tmp" apt-get update -qq > "$work/apt-update.log" 2>&1 || fail "apt-get update in the root failed: $(tail -n 1 "$work/apt-update.log")"
  echo "$base_packages" > "$rootfs.tmp/etc/ftms-bridge-deb-rootfs"
  rm -rf "$rootfs"
  mv "$rootfs.tmp" "$rootfs"
  step "root file system built in $(since "$started") s ($(du -sm "$rootfs" | cut -f1) MB)"
else
  step "root file system: cached in $rootfs"
fi
! in_root test -e /opt/swift || fail "the root file system has /opt/swift"
! in_root sh -c 'command -v swift' >/dev/null || fail "the root file system has a swift"

# 1. The packages.
if [ "$build" = yes ]; then
  started="$(now)"
  scripts/package-deb.sh "${package_flags[@]}" --rev 1 > "$work/package1.out" 2> "$work/package1.log" || fail "package-deb.sh --rev 1: $(tail -n 1 "$work/package1.log")"
  scripts/package-deb.sh "${package_flags[@]}" --rev 2 --no-build --no-lintian > "$work/package2.out" 2> "$work/package2.log" || fail "package-deb.sh --rev 2: $(tail -n 1 "$work/package2.log")"
  step "packages built in $(since "$started") s"
fi
first="$(ls .build/deb/ftms-bridge_*-1_*.deb 2>/dev/null | tail -n 1)"
second="$(ls .build/deb/ftms-bridge_*-2_*.deb 2>/dev/null | tail -n 1)"
[ -f "$first" ] && [ -f "$second" ] || fail "no REV 1 and REV 2 packages in .build/deb"
version="$(dpkg-deb -f "$first" Version)"
depends="$(dpkg-deb -f "$first" Depends)"
step "$(basename "$first"): $(stat -c %s "$first") bytes; Depends: $depends"
names="$(echo "$depends" | tr ',|' '\n\n' | sed 's/(.*)//; s/ //g' | grep -v '^$' | sort -u)"
missing=()
for name in $names; do
  origin="$(in_root apt-cache policy "$name" | sed -n '/Version table/,$p' | grep -m 1 -o 'http://deb.debian.org/debian [a-z-]*' || true)"
  [ -n "$origin" ] || fail "Depends names $name, which Debian 12's archive does not have"
  in_root dpkg-query -W -f='${Status}' "$name" 2>/dev/null | grep -q "install ok installed" || missing+=("$name")
done
if [ ${#missing[@]} -gt 0 ]; then
  step "pre-installing ${missing[*]} into the cached root (once, so installs stay offline)"
  in_root apt-get install -y -qq --no-install-recommends "${missing[@]}" > "$work/preinstall.log" 2>&1 \
    || fail "could not pre-install ${missing[*]}: $(tail -n 1 "$work/preinstall.log")"
fi
step "Depends: $(echo "$names" | wc -l) packages, every one in Debian 12's archive (deb.debian.org bookworm)"

# 2. Boot it.
started="$(now)"
mkdir -p "$work/deb"
cp "$first" "$second" "$work/deb/"
# A network of its own (loopback only): the daemon's Prometheus port and the backend's are the
# container's, so a gateway whose own service holds 127.0.0.1:9464 runs this test too.
systemd-nspawn -q -D "$rootfs" --ephemeral --keep-unit --register=no --boot --machine="ftms-deb-$$" --private-network \
  --bind-ro="$work/deb:/mnt/ftms-test/deb" --bind-ro="$tools:/mnt/ftms-test/bin" --bind-ro="$swift_root:/mnt/ftms-test/swift" \
  > "$work/console.log" 2>&1 < /dev/null &
nspawn=$!
leader=""
for _ in $(seq 1 100); do
  leader="$(pgrep -P "$nspawn" | head -n 1 || true)"
  [ -n "$leader" ] && [ "$(cat "/proc/$leader/comm" 2>/dev/null)" = systemd ] && break
  leader=""
  sleep 0.1
done
[ -n "$leader" ] || fail "systemd-nspawn did not start the container's systemd: $(tail -n 3 "$work/console.log" | tr '\n' ' ')"
inside() { nsenter -t "$leader" -a --wd env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 DEBIAN_FRONTEND=noninteractive "$@"; }
# systemctl fails at once until systemd's private socket exists, so ask again until it answers.
booted=""
for _ in $(seq 1 120); do
  booted="$(timeout 60 nsenter -t "$leader" -a systemctl is-system-running --wait 2>/dev/null || true)"
  case "$booted" in running|degraded) break ;; esac
  sleep 0.5
done
[ "$booted" = running ] || [ "$booted" = degraded ] || fail "the container did not boot: $booted"
inside systemctl mask --now bluetooth.service > /dev/null 2>&1 || fail "cannot mask bluetooth.service"
step "container booted ($booted) in $(since "$started") s; bluetooth.service masked for ftms-sim"

wait_active() { # wait_active SECONDS: until ftms-bridge is active
  local deadline=$(( $(date +%s) + $1 ))
  while [ "$(inside systemctl is-active ftms-bridge 2>/dev/null || true)" != active ]; do
    [ "$(date +%s)" -lt "$deadline" ] || return 1
    sleep 0.1
  done
}
main_pid() { inside systemctl show -p MainPID --value ftms-bridge; }

# 3. Install.
started="$(now)"
inside apt-get install -y -q "/mnt/ftms-test/deb/$(basename "$first")" > "$work/install.log" 2>&1 \
  || fail "apt-get install $(basename "$first"): $(grep -E '^E:' "$work/install.log" | head -n 1)"
wait_active 60 || fail "ftms-bridge not active 60 s after apt-get install: $(inside systemctl status ftms-bridge --no-pager 2>&1 | tail -n 3 | tr '\n' ' ')"
install_seconds="$(since "$started")"
# Offline: apt fetched nothing (apt's --no-download refuses a local .deb), and installed only it.
! grep '^Get:' "$work/install.log" | grep -qv ' /mnt/ftms-test/deb/' || fail "apt-get fetched packages: $(grep '^Get:' "$work/install.log" | grep -v ' /mnt/ftms-test/deb/' | head -n 1)"
grep -q '^0 upgraded, 1 newly installed' "$work/install.log" || fail "apt-get installed more than the package: $(grep 'newly installed' "$work/install.log")"
step "apt-get install → active in $install_seconds s (bar: 60 s), offline, from the cached root's Debian packages"
pid="$(main_pid)"
status="$(inside cat "/proc/$pid/status")"
[ "$(echo "$status" | awk '/^Uid:/ { print $2 }')" = "$(inside id -u ftms-bridge)" ] || fail "the daemon does not run as user ftms-bridge"
echo "$status" | grep -qE '^NoNewPrivs:\s+1$' || fail "the daemon runs without NoNewPrivs"
echo "$status" | grep -qE '^Seccomp:\s+2$' || fail "the daemon runs without a seccomp filter"
echo "$status" | grep -qE '^CapEff:\s+0+$' || fail "the daemon has capabilities"
[ "$(inside readlink "/proc/$pid/exe")" = /usr/sbin/ftms-bridged ] || fail "the unit does not run /usr/sbin/ftms-bridged"
# The Swift runtime comes from the package's /usr/lib/ftms-bridge, every other library from
# Debian's directories, and nothing is missing (the root has no toolchain to fall back on).
runtime_libraries=0
for binary in /usr/sbin/ftms-bridged /usr/bin/ftms-bridge; do
  inside ldd "$binary" > "$work/ldd.txt" 2>&1 || fail "ldd $binary: $(head -n 1 "$work/ldd.txt")"
  ! grep -q 'not found' "$work/ldd.txt" || fail "$binary misses a library: $(grep -m 1 'not found' "$work/ldd.txt")"
  while read -r name _ path _; do
    path="$(realpath -m -s "$path")"   # $ORIGIN/../lib/ftms-bridge as ldd prints it, /usr/sbin/../lib/...
    case "$name" in
      libswift*|libFoundation*|lib_Foundation*|libdispatch*|libBlocksRuntime*)
        [ "$path" = "/usr/lib/ftms-bridge/$name" ] || fail "$binary loads $name from $path, not from /usr/lib/ftms-bridge"
        runtime_libraries=$((runtime_libraries + 1)) ;;
      *)
        case "$path" in
          /usr/lib/ftms-bridge/*) fail "$binary loads $name from the package's runtime directory" ;;
          /lib/*|/usr/lib/*) ;;
          *) fail "$binary loads $name from $path" ;;
        esac ;;
    esac
  done < <(grep ' => ' "$work/ldd.txt")
done
inside test -f /usr/lib/ftms-bridge/libswiftCore.so || fail "no /usr/lib/ftms-bridge/libswiftCore.so"
[ "$runtime_libraries" -gt 0 ] || fail "ldd lists no Swift runtime library"
! inside test -e /opt/swift || fail "/opt/swift exists in the container"
[ "$(inside ftms-bridge --version)" = "${version%-*}" ] || fail "ftms-bridge --version is not ${version%-*}"
[ "$(inside ftms-bridged --version)" = "${version%-*}" ] || fail "ftms-bridged --version is not ${version%-*}"
doctor_status=0
inside ftms-bridge doctor --json > "$work/doctor.json" 2> "$work/doctor.err" || doctor_status=$?
[ "$doctor_status" -le 1 ] || fail "ftms-bridge doctor exited $doctor_status: $(head -n 1 "$work/doctor.err")"
python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); assert "summary" in d' "$work/doctor.json" \
  || fail "ftms-bridge doctor --json printed no report"
for file in 644:/usr/lib/systemd/system/ftms-bridge.service 644:/usr/lib/systemd/system/ftms-bridge-dashboard.service \
            644:/usr/lib/sysusers.d/ftms-bridge.conf 640:/etc/ftms-bridge/config.toml 644:/usr/share/doc/ftms-bridge/copyright \
            644:/usr/share/doc/ftms-bridge/changelog.Debian.gz 644:/usr/share/man/man8/ftms-bridged.8.gz \
            644:/usr/share/man/man1/ftms-bridge.1.gz 755:/usr/bin/ftms-bridge 755:/usr/sbin/ftms-bridged; do
  [ "$(inside stat -c %a "${file#*:}" 2>/dev/null)" = "${file%%:*}" ] || fail "${file#*:} is missing or not mode ${file%%:*}"
done
[ "$(inside stat -c %G /etc/ftms-bridge/config.toml)" = ftms-bridge ] || fail "config.toml is not in group ftms-bridge"
[ "$(inside systemctl is-enabled ftms-bridge-dashboard 2>/dev/null || true)" = disabled ] || fail "the dashboard unit is enabled unasked"
step "runs as ftms-bridge (no capabilities, NoNewPrivs, seccomp); ldd: the Swift runtime from /usr/lib/ftms-bridge, no toolchain; --version ${version%-*}; doctor exit $doctor_status; files and modes in place"

# bluetoothd restarted when it crashes: the package's drop-in in effect on Debian 12's own
# bluetooth.service (docs/systemd.md, "When bluetoothd crashes"). A masked unit loads no
# drop-in, so the unit is unmasked to read its properties (and doctor's verdict on them), then
# masked again for ftms-sim; nothing starts it in between (ftms-sim is not up yet, and masking
# with --now would stop a bluetoothd that D-Bus activation started).
bluetooth_restart() { # the Restart=, RestartUSec= and StartLimitIntervalUSec= bluetooth.service has now
  inside systemctl unmask bluetooth.service > /dev/null 2>&1 || fail "cannot unmask bluetooth.service"
  inside systemctl show bluetooth.service -p Restart -p RestartUSec -p StartLimitIntervalUSec | sort | paste -sd ' '
  if [ "${1:-}" = doctor ]; then
    inside ftms-bridge doctor --json > "$work/doctor-bluetooth.json" 2> /dev/null || true
  fi
  inside systemctl mask --now bluetooth.service > /dev/null 2>&1 || fail "cannot mask bluetooth.service again"
}
restart="$(bluetooth_restart doctor)"
[ "$restart" = "Restart=on-failure RestartUSec=2s StartLimitIntervalUSec=0" ] \
  || fail "the package's drop-in is not in effect on bluetooth.service: $restart"
python3 - "$work/doctor-bluetooth.json" <<'PY' || fail "doctor does not find bluetoothd restarted on failure: $(head -c 300 "$work/doctor-bluetooth.json")"
import json, sys
checks = json.load(open(sys.argv[1]))["checks"]
restart = [c for c in checks if c["id"] == "bluetoothd-restart"]
sys.exit(0 if restart and restart[0]["status"] == "ok" else 1)
PY
step "bluetooth.service: $restart (the package's drop-in); doctor's bluetoothd restart check ok"

# 4. Reinstall: restarts, keeps the operator's edit.
inside sh -c 'echo "# an operator was here" >> /etc/ftms-bridge/config.toml'
before="$(main_pid)"
inside apt-get install -y -q --reinstall "/mnt/ftms-test/deb/$(basename "$first")" > "$work/reinstall.log" 2>&1 \
  || fail "reinstall: $(grep -E '^E:' "$work/reinstall.log" | head -n 1)"
wait_active 60 || fail "ftms-bridge not active after the reinstall"
[ "$(main_pid)" != "$before" ] || fail "the reinstall did not restart the daemon"
inside grep -q "an operator was here" /etc/ftms-bridge/config.toml || fail "the reinstall lost the operator's edit of config.toml"
step "reinstall: restarted, config.toml keeps the operator's edit"

# 5. Upgrade mid-ride.
mkfifo "$work/backend.stdin"
inside env LD_LIBRARY_PATH=/mnt/ftms-test/swift/usr/lib/swift/linux /mnt/ftms-test/bin/ftms-backend --port 0 --exit-with-stdin \
  < "$work/backend.stdin" > "$work/backend.out" 2> "$work/backend.log" &
exec 7> "$work/backend.stdin"
for _ in $(seq 1 100); do grep -q '^listening ' "$work/backend.out" 2>/dev/null && break; sleep 0.1; done
url="$(sed -n 's/^listening \(http[^ ]*\)$/\1/p' "$work/backend.out")"
[ -n "$url" ] || fail "ftms-backend did not start: $(tail -n 1 "$work/backend.log")"
inside env LD_LIBRARY_PATH=/mnt/ftms-test/swift/usr/lib/swift/linux /mnt/ftms-test/bin/ftms-sim --bikes 1 --rate 4 --seed 23 \
  > "$work/sim.log" 2>&1 < /dev/null &
inside sed -i -e "s|^#url = \"\"|url = \"$url\"|" -e 's|^#upload_interval = 900|upload_interval = 5|' \
  -e 's|^#checkpoint_interval = 5|checkpoint_interval = 2|' -e 's|^#minimum_movement = 60|minimum_movement = 3|' \
  /etc/ftms-bridge/config.toml
inside sh -c 'umask 077; echo test:deb > /root/id-token'
inside ftms-bridge login --backend "$url" --provider google --id-token-file /root/id-token > "$work/login.log" 2>&1 \
  || fail "ftms-bridge login: $(tail -n 1 "$work/login.log")"
inside systemctl restart ftms-bridge
wait_active 30 || fail "ftms-bridge not active after the restart with a backend"
step "ftms-backend at $url; ftms-bridge login; systemctl restart ftms-bridge; ftms-sim riding one bike"
# In the container's network (its backend is on its loopback), with this host's python.
nsenter -t "$leader" --net python3 - "$leader" "$work" "$url" "$(basename "$second")" "${version%-*}-2" <<'PY' || fail "upgrade mid-ride: $(tail -n 1 "$work/ride.log" 2>/dev/null)"
import json, os, socket, subprocess, sys, threading, time, urllib.request
leader, work, url, second, new_version = sys.argv[1:6]
log = open(os.path.join(work, "ride.log"), "w")
def say(text):
    print(f"deb-test: {text}", flush=True)
    log.write(text + "\n"); log.flush()
def fail(text):
    log.write(text + "\n"); log.flush()
    sys.exit(1)
def inside(*argv, timeout=120):
    return subprocess.run(["nsenter", "-t", leader, "-a", "--wd", "env", "-i", "PATH=/usr/sbin:/usr/bin:/sbin:/bin",
                           "DEBIAN_FRONTEND=noninteractive", *argv], capture_output=True, text=True, timeout=timeout)
messages, lock = [], threading.Lock()
connections = [0]
def read():
    path = f"/proc/{leader}/root/run/ftms-bridge/metrics.sock"
    while True:
        try:
            sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            sock.connect(path)
        except OSError:
            time.sleep(0.1)
            continue
        connections[0] += 1
        with sock, sock.makefile("r", encoding="utf-8") as lines:
            for line in lines:
                with lock:
                    messages.append(json.loads(line))
        time.sleep(0.1)
threading.Thread(target=read, daemon=True).start()
def wait_for(what, test, seconds):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        with lock:
            value = test(list(messages))
        if value:
            return value
        time.sleep(0.2)
    fail(f"timed out waiting for {what}")
def distance(message):
    payload = message.get("payload", {})
    return payload.get("total_distance_m")
started = wait_for("a session to start", lambda ms: next((m for m in ms if m["type"] == "session_state" and m["payload"].get("state") == "started"), None), 90)
session, machine = started["sessionId"], started["machine"]
before = wait_for("150 m ridden", lambda ms: (lambda d: d if d and d >= 150 else None)(max([distance(m) or 0 for m in ms if m["type"] == "sample" and m.get("sessionId") == session] or [0])), 120)
pid_before = inside("systemctl", "show", "-p", "MainPID", "--value", "ftms-bridge").stdout.strip()
with lock:
    upgrade_from = len(messages)
t0 = time.monotonic()
upgrade = inside("apt-get", "install", "-y", "-q", f"/mnt/ftms-test/deb/{second}")
if upgrade.returncode != 0:
    fail(f"apt-get install {second}: {upgrade.stdout[-300:]} {upgrade.stderr[-300:]}")
upgrade_seconds = time.monotonic() - t0
installed = inside("dpkg-query", "-W", "-f=${Version}", "ftms-bridge").stdout.strip()
if installed != new_version:
    fail(f"after the upgrade dpkg says {installed}, not {new_version}")
pid_after = inside("systemctl", "show", "-p", "MainPID", "--value", "ftms-bridge").stdout.strip()
if pid_after == pid_before:
    fail("the upgrade did not restart the daemon")
say(f"upgrade to {new_version} at {before:.0f} m into session {session}: apt-get took {upgrade_seconds:.1f} s, the daemon restarted")
after = wait_for("the same session riding on after the upgrade", lambda ms: (lambda d: d if d and d >= before + 150 else None)(
    max([distance(m) or 0 for m in ms[upgrade_from:] if m["type"] == "sample" and m.get("sessionId") == session] or [0])), 120)
with lock:
    others = {m.get("sessionId") for m in messages[upgrade_from:] if m["type"] == "sample" and m.get("sessionId") and m.get("sessionId") != session}
if others:
    fail(f"after the upgrade the machine rides in another session {others}, not {session}")
stop = inside("ftms-bridge", "control", machine, "--stop")
if stop.returncode != 0:
    fail(f"ftms-bridge control {machine} --stop: {stop.stderr.strip()}")
with lock:
    odometer = max(distance(m) or 0 for m in messages if m["type"] == "sample" and m.get("machine") == machine)
summary = wait_for("the session's summary", lambda ms: next((m for m in ms if m["type"] == "session_summary" and m.get("sessionId") == session), None), 120)
def held():
    with urllib.request.urlopen(f"{url}/_admin/sessions?bodies=1", timeout=10) as answer:
        return [s for s in json.load(answer)["sessions"] if s["session_id"] == session]
deadline = time.monotonic() + 90
copies = []
while time.monotonic() < deadline:
    copies = held()
    if copies:
        break
    time.sleep(0.5)
time.sleep(6)  # one more upload round: a duplicate would show now
copies = held()
if len(copies) != 1 or copies[0]["received"] != 1:
    fail(f"the backend holds session {session} {len(copies)} time(s): {copies}")
uploaded = (copies[0].get("body") or {}).get("total_distance")
# The daemon is down for a second or two during the upgrade; what the bike rode then is in its
# odometer and must be in the session too (a session restarted at the upgrade would lack the
# first half, over 150 m).
if uploaded is None or abs(uploaded - odometer) > max(25, 0.05 * odometer):
    fail(f"the backend's total_distance is {uploaded} m, the bike rode {odometer} m (before the upgrade: {before} m)")
say(f"backend holds session {session} once (received 1) with total_distance {uploaded} m; the bike's odometer said {odometer} m ({before:.0f} m before the upgrade)")
PY

# 6. Remove and purge with a session not uploaded: the backend goes away, the bike starts a new
#    ride (a session open, checkpointed), then remove stops the daemon and purge runs.
exec 7>&-   # ftms-backend exits with its stdin
inside ftms-bridge control SF-Bike-0001 --start > "$work/start.log" 2>&1 || fail "control --start: $(tail -n 1 "$work/start.log")"
open_session() {
  inside ftms-bridge status --json 2>/dev/null | python3 -c '
import json, sys
machines = json.load(sys.stdin).get("machines", [])
sys.exit(0 if any(m.get("sessionId") or m.get("session_id") for m in machines) else 1)'
}
for _ in $(seq 1 60); do open_session && break; sleep 1; done
open_session || fail "no session opened after control --start"
sleep 3   # past a checkpoint (checkpoint_interval = 2)
inside apt-get remove -y -q ftms-bridge > "$work/remove.log" 2>&1 || fail "apt-get remove: $(grep -E '^E:' "$work/remove.log" | head -n 1)"
[ "$(inside systemctl is-active ftms-bridge 2>/dev/null || true)" != active ] || fail "ftms-bridge still active after remove"
! inside test -e /usr/sbin/ftms-bridged || fail "remove left /usr/sbin/ftms-bridged"
! inside test -e /usr/lib/ftms-bridge || fail "remove left /usr/lib/ftms-bridge (the Swift runtime)"
inside test -f /var/lib/ftms-bridge/ftms-bridge.sqlite || fail "remove deleted the session store"
inside test -f /etc/ftms-bridge/config.toml || fail "remove deleted config.toml (only purge may)"
restart="$(bluetooth_restart)"
[[ "$restart" == "Restart=no "* ]] \
  || fail "after remove, bluetooth.service is not Debian's own again: $restart"
step "remove: stopped, binaries and runtime gone; the store and config.toml stay; bluetooth.service back to Debian's ($restart)"
inside apt-get purge -y -q ftms-bridge > "$work/purge.log" 2>&1 || fail "apt-get purge: $(grep -E '^E:' "$work/purge.log" | head -n 1)"
kept="$(grep -c '^ftms-bridge: purge kept /var/lib/ftms-bridge' "$work/purge.log" || true)"
[ "$kept" -eq 1 ] || fail "purge did not say in one line that it kept /var/lib/ftms-bridge: $(tail -n 3 "$work/purge.log" | tr '\n' ' ')"
inside test -f /var/lib/ftms-bridge/ftms-bridge.sqlite || fail "purge deleted a store holding a session not uploaded"
! inside test -e /etc/ftms-bridge || fail "purge left /etc/ftms-bridge"
[ "$(inside dpkg-query -W -f='${Status}' ftms-bridge 2>/dev/null || true)" != "install ok installed" ] || fail "dpkg still lists ftms-bridge"
! inside test -e /usr/lib/systemd/system/bluetooth.service.d/ftms-bridge.conf || fail "purge left bluetooth.service's drop-in"
step "purge: /etc/ftms-bridge removed; $(grep '^ftms-bridge: purge kept' "$work/purge.log")"
step "total $(since "$began") s"
echo "deb-test: PASS"
