#!/usr/bin/env bash
# Builds (once) the Debian 12 guest that scripts/vm/run.sh boots: an ext4 disk image holding a
# debootstrap root file system with the stock kernel, bluez 5.66 and the runtime libraries ftms-bridge's
# debug binaries load, plus the kernel and initrd taken out of it (qemu boots them directly, no
# bootloader). The result lives outside the repository, in ${FTMS_BRIDGE_CACHE:-/var/cache/ftms-bridge}/vm-<stamp>/,
# where <stamp> hashes the recipe (package list, version) and guest-init: changing either builds a new image, an unchanged recipe
# reuses the old one. Built in a temporary folder and renamed into place, so an interrupted build leaves
# nothing that looks finished. Prints the image folder on stdout.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cache="${FTMS_BRIDGE_CACHE:-/var/cache/ftms-bridge}"
# bluez-test-tools: btvirt (virtual controllers over hci_vhci); bluez: bluetoothd, btmgmt, btmon.
# The libraries are what `ldd` lists for ftms-bridge, ftms-sim and ftms-backend besides the Swift runtime,
# which the guest reads from the host's /opt/swift over 9p.
packages=(linux-image-amd64 kmod udev dbus bluez bluez-test-tools procps iproute2 sqlite3
          libdbus-1-3 libsqlite3-0 libmosquitto1 libbluetooth3 libstdc++6 libgcc-s1 zlib1g
          libsystemd0 libssl3 libcurl4 libxml2 libcap2)
# Bump when the steps below change in a way the package list and guest-init do not show.
recipe="recipe 1: ${packages[*]}; GATT Channels=1"
stamp="$( (echo "$recipe"; cat "$here/guest-init") | sha256sum | cut -c1-12)"
image="$cache/vm-$stamp"
if [ -f "$image/ready" ]; then echo "$image"; exit 0; fi

for tool in debootstrap mkfs.ext4 qemu-system-x86_64; do
  command -v "$tool" >/dev/null || missing_tools=1
done
if [ -n "${missing_tools:-}" ]; then
  echo "vm/image: installing debootstrap e2fsprogs qemu-system-x86" >&2
  sudo=""; [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq >&2
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends \
    debootstrap e2fsprogs qemu-system-x86 >&2
fi

mirror="$(sed -n 's/^URIs: *\(http[^ ]*debian\)$/\1/p; s/^deb \(http[^ ]*\/debian\) bookworm .*/\1/p' \
  /etc/apt/sources.list /etc/apt/sources.list.d/*.sources 2>/dev/null | head -1 || true)"
mirror="${mirror:-http://deb.debian.org/debian}"

mkdir -p "$cache"
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
mkdir -p "$image.new"
mkfs.ext4 -q -L ftms-vm -d "$root" "$work/disk.ext4" 2G
mv "$work/disk.ext4" "$work/vmlinuz" "$work/initrd.img" "$image.new/"
echo "$stamp built in $((SECONDS - started)) s" > "$image.new/ready"
rm -rf "$image"; mv "$image.new" "$image"
echo "vm/image: built $image in $((SECONDS - started)) s" >&2
echo "$image"
