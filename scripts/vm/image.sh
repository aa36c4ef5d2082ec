#!/usr/bin/env bash
# Builds (once) the Debian 12 guest that scripts/vm/run.sh boots: an ext4 disk image holding a
# debootstrap root file system with the stock kernel, bluez 5.66 and the runtime libraries ftms-bridge's
# debug binaries load, plus the kernel and initrd taken out of it (qemu boots them directly, no
# bootloader). The result lives outside the repository, in ${FTMS_BRIDGE_CACHE:-/var/cache/ftms-bridge}/vm-<stamp>/,
# where <stamp> hashes the recipe (package list, version) and guest-init: changing either builds a new image, an unchanged recipe
# reuses the old one. Built in a temporary folder and renamed into place, so an interrupted build leaves
# nothing that looks finished; a second image.sh meanwhile waits for the first one's build (a lock per
# recipe) and then uses it.
#
#   scripts/vm/image.sh [PATH_FILE]     builds if needed, then writes the image folder into PATH_FILE
#
# Everything it and its tools print goes to stderr: the image folder travels by the file, never by
# captured stdout (bookworm's mke2fs prints "Creating regular file ..." on stdout even with -q).
set -euo pipefail
exec 3>&1 1>&2
path_file="${1:-}"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cache="${FTMS_BRIDGE_CACHE:-/var/cache/ftms-bridge}"
# bluez-test-tools: btvirt (virtual controllers over hci_vhci); bluez: bluetoothd, btmgmt, btmon.
# The libraries are what `ldd` lists for ftms-bridge, ftms-sim and ftms-backend besides the Swift runtime,
# which the guest reads from the host's /opt/swift over 9p. mosquitto: the floor scenario's broker (two
# gateways in one guest); curl: its questions to ftms-backend's admin API.
packages=(linux-image-amd64 kmod udev dbus bluez bluez-test-tools procps iproute2 sqlite3
          libdbus-1-3 libsqlite3-0 libmosquitto1 libbluetooth3 libstdc++6 libgcc-s1 zlib1g
          libsystemd0 libssl3 libcurl4 libxml2 libcap2 mosquitto curl)
# Bump when the steps below change in a way the package list and guest-init do not show.
recipe="recipe 1: ${packages[*]}; GATT Channels=1"
stamp="$( (echo "$recipe"; cat "$here/guest-init") | sha256sum | cut -c1-12)"
image="$cache/vm-$stamp"
# found: the image is there; hands its folder to the caller.
found() {
  if [ -n "$path_file" ]; then echo "$image" > "$path_file"; else echo "$image" >&3; fi
  exit 0
}
[ -f "$image/ready" ] && found
mkdir -p "$cache"
# One build per recipe at a time: a second caller waits here, then finds the first one's image.
exec 9> "$cache/vm-$stamp.lock"
if ! flock -n 9; then
  echo "vm/image: another process is building $image; waiting for it" >&2
  flock 9
fi
[ -f "$image/ready" ] && found

for tool in debootstrap mkfs.ext4 qemu-system-x86_64; do
  command -v "$tool" >/dev/null || missing_tools=1
done
if [ -n "${missing_tools:-}" ]; then
  echo "vm/image: installing debootstrap e2fsprogs qemu-system-x86" >&2
  . "$here/../lib/apt-get.sh"
  apt_get update -qq >&2
  apt_get install -y -qq --no-install-recommends debootstrap e2fsprogs qemu-system-x86 >&2
fi

mirror="$(sed -n 's/^URIs: *\(http[^ ]*debian\)$/\1/p; s/^deb \(http[^ ]*\/debian\) bookworm .*/\1/p' \
  /etc/apt/sources.list /etc/apt/sources.list.d/*.sources 2>/dev/null | head -1 || true)"
mirror="${mirror:-http://deb.debian.org/debian}"

work="$(mktemp -d "$cache/vm-$stamp.tmp.XXXXXX")"
trap 'rm -rf "$work"' EXIT
started=$SECONDS
echo "vm/image: debootstrap bookworm from $mirror into $work (a few minutes, once)" >&2
debootstrap --variant=minbase --include="$(IFS=,; echo "${packages[*]}")" bookworm "$work/root" "$mirror" \
  > "$work/debootstrap.log" 2>&1 || { tail -20 "$work/debootstrap.log" >&2; echo "vm/image: debootstrap failed" >&2; exit 1; }

root="$work/root"
install -m 0755 "$here/guest-init" "$root/sbin/ftms-vm-init"
echo ftms-vm > "$root/etc/hostname"
# bluetoothd as Debian ships it, with one ATT bearer: SF machines speak plain ATT, not EATT, and btmon
# 5.66 cannot read a capture whose notifications travel on EATT channels.
sed -i 's/^#* *Channels *=.*/Channels = 1/' "$root/etc/bluetooth/main.conf"
grep -q '^Channels = 1' "$root/etc/bluetooth/main.conf" || printf '[GATT]\nChannels = 1\n' >> "$root/etc/bluetooth/main.conf"
cp "$root"/boot/vmlinuz-* "$work/vmlinuz"
cp "$root"/boot/initrd.img-* "$work/initrd.img"
rm -rf "$root"/var/cache/apt/archives/*.deb "$root"/var/lib/apt/lists/*
mkdir "$work/image"
mkfs.ext4 -q -L ftms-vm -d "$root" "$work/image/disk.ext4" 2G
mv "$work/vmlinuz" "$work/initrd.img" "$work/image/"
echo "$stamp built in $((SECONDS - started)) s" > "$work/image/ready"
# A folder left without `ready` (an older build cut short) gives way; the rename is atomic.
rm -rf "$image"; mv -T "$work/image" "$image"
echo "vm/image: built $image in $((SECONDS - started)) s" >&2
found
