#!/usr/bin/env bash
# Installs what building, running and testing ftms-bridge needs on Debian 12, and nothing
# that is already there. Safe to run again. Swift 6.3 itself is expected on PATH.
#
#   libdbus-1-dev     the DBus module binds libdbus-1 (pkg-config dbus-1)
#   libbluetooth-dev  `ftms-bridge doctor` reads controller versions through libbluetooth
#   dbus              tests start a private dbus-daemon in place of the system bus
#   libsqlite3-dev    the session store (GRDB over the system SQLite)
#   pkg-config, python3, hyperfine: build plumbing, the parity check and benchmarks
#   systemd           systemd-analyze and systemd-sysusers for scripts/check-systemd.sh (works
#                     without systemd as PID 1; a container may lack the package)
#   strace            check-systemd.sh's rehearsal: EPERM for every call SystemCallFilter= denies
#   chromium, chromium-driver: scripts/dashboard-browser.py drives the dashboard in headless chromium
#                     through WebDriver
#   libmosquitto-dev  the MQTT module binds libmosquitto (pkg-config libmosquitto)
#   mosquitto, mosquitto-clients, openssl: tests and the demo run a private broker (with a test CA
#                     for TLS) and watch it with mosquitto_sub
#   python3-dbus, python3-gi, python3-dbusmock: the fake BlueZ (Tests/Fixtures/dbusmock) runs on
#                     python-dbusmock's bluez5 template; dbus-python has no PyPI wheels, so these are the
#                     Debian packages, used through /usr/bin/python3 (not a pyenv/venv python3 on PATH);
#                     its timedated template is the synchronised box's timedated in scripts/clock-steps.py
#   sqlite3           FinishedSessionKeeperTests and ReplayQueueTests inject a failing store through a second process's trigger
#   faketime          scripts/clock-steps.py moves only the daemon's wall clock with libfaketime (a box
#                     without a real-time clock at 2000-01-01, stepped by NTP mid-ride)
#   dpkg-dev, binutils, lintian: scripts/package-deb.sh (dpkg-shlibdeps computes Depends, strip,
#                     lintian checks the package)
#   patchelf          scripts/package-deb.sh sets the executables' RUNPATH to the package's copy of
#                     the Swift runtime, in place of the toolchain's directory the linker wrote
#   debootstrap, systemd-container: scripts/deb-test.sh builds a clean Debian 12 root once and
#                     boots it with systemd-nspawn to install the package into
#   qemu-system-x86, e2fsprogs (and debootstrap): scripts/vm/ builds a Debian 12 guest (debootstrap into an
#                     ext4 image made with mkfs.ext4 -d) and boots it with qemu to test against real
#                     bluetoothd 5.66 (docs/testing.md)
#   curl              scripts/gym-demo.sh reads the reference backend's sessions over HTTP
#
# Another apt or dpkg at work (unattended-upgrades) is waited for, up to 10 minutes
# (scripts/lib/apt-get.sh).
set -euo pipefail
. "$(dirname "$0")/lib/apt-get.sh"
packages=(libdbus-1-dev libbluetooth-dev dbus libsqlite3-dev pkg-config python3 hyperfine
          python3-dbus python3-gi python3-dbusmock systemd strace chromium chromium-driver
          libmosquitto-dev mosquitto mosquitto-clients openssl sqlite3 faketime
          dpkg-dev binutils lintian patchelf debootstrap systemd-container
          qemu-system-x86 e2fsprogs curl)
missing=()
for package in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "install-deps: installing ${missing[*]}" >&2
  apt_get update -qq >&2
  apt_get install -y -qq --no-install-recommends "${missing[@]}" >&2
fi
command -v swift >/dev/null || { echo "install-deps: swift is not on PATH; install Swift 6.3 first" >&2; exit 1; }
