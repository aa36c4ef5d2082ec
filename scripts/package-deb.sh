#!/usr/bin/env bash
# Builds the Debian package of ftms-bridge for the toolchain's architecture (docs/systemd.md,
# "The Debian package"):
#
#   .build/deb/ftms-bridge_VERSION-REV_ARCH.deb
#
# VERSION is ProductVersion.current (Sources/DaemonConfig/ProductVersion.swift), what
# `ftms-bridge --version` prints; REV is --rev (default 1); ARCH is the toolchain's target.
# Both executables are built in release (in .build-release, apart from the debug build) and
# stripped. They share one copy of the Swift runtime: the toolchain's shared libraries that
# they load (the standard library, Concurrency, Dispatch, Foundation with its ICU data) go,
# stripped, into /usr/lib/ftms-bridge, and the executables' RUNPATH is
# $ORIGIN/../lib/ftms-bridge and nothing else, so nothing is looked up in a toolchain (the
# script checks that with ldd before it packages). Linked statically instead, each executable
# carried its own runtime and ICU data: 43.7 MB of package against 28.9 MB (docs/systemd.md).
# The package depends only on Debian 12 libraries: dpkg-shlibdeps computes them, and the
# package adds bluez (bluetoothd), systemd (systemd-sysusers) and nothing outside Debian.
# lintian checks the result: any error fails the script; the warnings it keeps are the ones
# docs/systemd.md names (scripts/lintian-overrides is not used: the reasons live in the docs).
#
# Usage: scripts/package-deb.sh [--rev N] [--no-build] [--no-lintian] [--debug] [--out DIR]
#   --no-build   package what the build folder already holds (fails if it is missing)
#   --no-lintian leave lintian out (scripts/deb-test.sh's second package, the first one's
#                files under another revision)
#   --debug      package the debug build (.build, the very executables the tests already
#                linked, so nothing is built again): what scripts/test.sh installs, since a
#                cold release build of the whole graph takes longer on a 2-core box than every
#                other test together. It is the same package but for the optimiser (and
#                libswiftSwiftOnoneSupport.so, which debug code loads, and gzip -1 where
#                release has xz: xz takes minutes over 140 MB of debug code on 2 cores); ship
#                release.
#
# Prints the package's path as its last line.
set -euo pipefail
cd "$(dirname "$0")/.."

fail() { echo "package-deb: $*" >&2; exit 1; }

rev=1
build=yes
lint=yes
config=release
out=.build/deb
while [ $# -gt 0 ]; do
  case "$1" in
    --rev) [ $# -ge 2 ] || fail "--rev needs a number"; rev="$2"; shift ;;
    --no-build) build=no ;;
    --no-lintian) lint=no ;;
    --debug) config=debug ;;
    --out) [ $# -ge 2 ] || fail "--out needs a directory"; out="$2"; shift ;;
    -h|--help) sed -n '2,31p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) fail "unknown argument '$1' (try --help)" ;;
  esac
  shift
done
[[ "$rev" =~ ^[0-9]+$ ]] || fail "--rev must be a whole number, not '$rev'"
for tool in dpkg-deb dpkg-shlibdeps lintian strip readelf patchelf gzip; do
  command -v "$tool" >/dev/null || fail "$tool is missing (scripts/install-deps.sh installs it)"
done

version="$(sed -n 's/^ *[a-z]* *static let current = "\([0-9][0-9A-Za-z.+~]*\)"$/\1/p' Sources/DaemonConfig/ProductVersion.swift)"
[ -n "$version" ] || fail "no version in Sources/DaemonConfig/ProductVersion.swift"
triple="$(swiftc -print-target-info | sed -n 's/^ *"triple": "\([^"]*\)".*/\1/p' | head -n 1)"
case "${triple%%-*}" in
  x86_64) arch=amd64 ;;
  aarch64) arch=arm64 ;;
  *) fail "no Debian architecture for the toolchain's target '$triple'" ;;
esac
full_version="$version-$rev"
# Reproducible: every date and mtime in the package is the last commit's.
export SOURCE_DATE_EPOCH="${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct 2>/dev/null || date +%s)}"

scratch=.build-release
[ "$config" = release ] || scratch=.build
if [ "$build" = yes ]; then
  started=$(date +%s)
  for product in ftms-bridged ftms-bridge; do
    echo "package-deb: building $product ($config)" >&2
    swift build -c "$config" --scratch-path "$scratch" --product "$product" >&2
  done
  echo "package-deb: $config build took $(( $(date +%s) - started )) s" >&2
fi
bin="$(swift build -c "$config" --scratch-path "$scratch" --show-bin-path)"
for product in ftms-bridge ftms-bridged; do
  [ -x "$bin/$product" ] || fail "no $bin/$product (run without --no-build)"
done
# swift-argument-parser's generate-manual (what its plugin runs), from the resolved checkout.
manual_tool="$scratch/generate-manual/debug/generate-manual"
if [ ! -x "$manual_tool" ]; then
  swift build --package-path "$scratch/checkouts/swift-argument-parser" --scratch-path "$scratch/generate-manual" \
    --product generate-manual >&2
fi

mkdir -p "$out"
out="$(cd "$out" && pwd)"
root="$out/root"
rm -rf "$root"
install -d -m 0755 "$root/DEBIAN" "$root/usr/bin" "$root/usr/sbin" "$root/usr/lib/systemd/system" "$root/usr/lib/sysusers.d" \
  "$root/etc/ftms-bridge" "$root/usr/share/doc/ftms-bridge" "$root/usr/share/man/man1" "$root/usr/share/man/man8"
# The same stripping as dh_strip: no debug sections, no .comment or .note.
install -m 0755 "$bin/ftms-bridge" "$root/usr/bin/ftms-bridge"
install -m 0755 "$bin/ftms-bridged" "$root/usr/sbin/ftms-bridged"
strip --strip-unneeded --remove-section=.comment --remove-section=.note "$root/usr/bin/ftms-bridge" "$root/usr/sbin/ftms-bridged"

# The Swift runtime, once for both executables: every library of the toolchain's runtime
# directory that they load, directly or through another (readelf's NEEDED, followed), and no
# other. The libraries find each other through their own RUNPATH ($ORIGIN); the executables
# find them through theirs, which the linker made the toolchain's directory and $ORIGIN
# (SwiftPM's) and which becomes the package's directory alone.
runtime="$(swiftc -print-target-info | tr -d '\n ' | sed -n 's/.*"runtimeLibraryPaths":\["\([^"]*\)".*/\1/p')"
[ -d "$runtime" ] || fail "no runtime library directory in swiftc -print-target-info ('$runtime')"
private=usr/lib/ftms-bridge
install -d -m 0755 "$root/$private"
needed() { readelf -d "$1" | sed -n 's/^.*(NEEDED).*\[\(.*\)\]$/\1/p'; }
pending=("$root/usr/sbin/ftms-bridged" "$root/usr/bin/ftms-bridge")
while [ ${#pending[@]} -gt 0 ]; do
  object="${pending[0]}"
  pending=("${pending[@]:1}")
  for library in $(needed "$object"); do
    if [ -f "$runtime/$library" ] && [ ! -f "$root/$private/$library" ]; then
      install -m 0644 "$runtime/$library" "$root/$private/$library"
      pending+=("$root/$private/$library")
    fi
  done
done
ls "$root/$private"/libswiftCore.so > /dev/null 2>&1 || fail "the executables load no libswiftCore.so from $runtime"
strip --strip-unneeded --remove-section=.comment --remove-section=.note "$root/$private"/*.so
patchelf --set-rpath "\$ORIGIN/../lib/ftms-bridge" "$root/usr/sbin/ftms-bridged" "$root/usr/bin/ftms-bridge"
# Every object's search path is its own directory's relative, and each library it needs is in
# the package or the system's: ldd with no environment, so nothing comes from a toolchain.
for object in "$root/usr/sbin/ftms-bridged" "$root/usr/bin/ftms-bridge" "$root/$private"/*.so; do
  for path in $(readelf -d "$object" | sed -n 's/^.*(R[UN]*PATH).*\[\(.*\)\]$/\1/p' | tr ':' ' '); do
    case "$path" in
      '$ORIGIN'|'$ORIGIN/../lib/ftms-bridge') ;;
      *) fail "${object#"$root"/} searches $path for libraries" ;;
    esac
  done
  resolved="$(env -i ldd "$object" 2>&1)" || fail "ldd ${object#"$root"/}: $(echo "$resolved" | head -n 1)"
  ! echo "$resolved" | grep -q 'not found' || fail "${object#"$root"/} misses $(echo "$resolved" | grep -m 1 'not found')"
  while read -r name _ path _; do
    path="$(readlink -f "$path")"
    case "$path" in
      "$root/$private/$name"|/lib/*|/usr/lib/*) ;;
      *) fail "${object#"$root"/} loads $name from $path, neither the package's nor the system's" ;;
    esac
  done < <(echo "$resolved" | grep ' => ')
done

# The units and sysusers entry with the package's paths (scripts/install.sh does the same for PREFIX).
for unit in ftms-bridge.service ftms-bridge-dashboard.service; do
  sed -e 's|/usr/local/bin/ftms-bridge|/usr/bin/ftms-bridge|g' -e 's|/usr/local/sbin/ftms-bridged|/usr/sbin/ftms-bridged|g' \
    -e 's|file:///usr/local/share/doc/ftms-bridge/\([a-z-]*\)\.md|file:///usr/share/doc/ftms-bridge/\1.md.gz|g' \
    -e '/^# scripts\/install.sh rewrites/d' "systemd/$unit" > "$root/usr/lib/systemd/system/$unit"
  chmod 0644 "$root/usr/lib/systemd/system/$unit"
done
grep -qx 'ExecStart=/usr/sbin/ftms-bridged --config /etc/ftms-bridge/config.toml' "$root/usr/lib/systemd/system/ftms-bridge.service" \
  || fail "the packaged unit's ExecStart does not name /usr/sbin/ftms-bridged"
install -m 0644 systemd/ftms-bridge.sysusers "$root/usr/lib/sysusers.d/ftms-bridge.conf"
# bluetoothd restarted when it crashes (Debian 12's unit does not): a drop-in under /usr/lib,
# the package's own file, so remove takes it away and an operator's /etc drop-in wins over it.
install -D -m 0644 systemd/bluetooth-restart.conf "$root/usr/lib/systemd/system/bluetooth.service.d/ftms-bridge.conf"
# A conffile: dpkg keeps an operator's edits over upgrades and asks when the default changed.
# postinst gives it 0640 root:ftms-bridge through dpkg-statoverride once the group exists.
install -m 0644 systemd/config.example.toml "$root/etc/ftms-bridge/config.toml"

# Documentation an operator reads on the box (compressed, as Debian policy wants).
doc="$root/usr/share/doc/ftms-bridge"
for file in systemd configuration dashboard doctor sync metrics-socket control-socket mqtt prometheus; do
  gzip -9n < "docs/$file.md" > "$doc/$file.md.gz"
done
gzip -9n < README.md > "$doc/README.md.gz"
chmod 0644 "$doc"/*.gz
cat > "$doc/copyright" <<'EOF'
Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/
Upstream-Name: ftms-bridge
Comment: The executables link these Swift packages statically:
 swift-argument-parser, swift-nio, swift-log, swift-metrics, swift-service-lifecycle,
 async-http-client, swift-collections, swift-atomics, swift-system (Apache-2.0, Apple Inc. and
 the Swift project authors; the SwiftNIO project authors; the Swift Server Workgroup);
 GRDB.swift (MIT, Gwendal Roué); TOMLKit (MIT, Jeff Lebrun) with toml++ (MIT, Mark Gillard);
 hummingbird (Apache-2.0, the Hummingbird authors); swift-prometheus (Apache-2.0).
 /usr/lib/ftms-bridge holds the Swift runtime's shared libraries, as the Swift 6.3 toolchain
 ships them (Apache-2.0 with the Swift Runtime Library Exception, Apple Inc. and the Swift
 project authors); lib_FoundationICU.so is ICU (Unicode License v3, Unicode, Inc.).
Files: *
Copyright: 2025-2026 the ftms-bridge maintainers
License: Apache-2.0

License: Apache-2.0
 Licensed under the Apache License, Version 2.0 (the "License"); you may not use this
 file except in compliance with the License. You may obtain a copy of the License at
 http://www.apache.org/licenses/LICENSE-2.0
 .
 On Debian systems, the complete text of the Apache License, Version 2.0 can be found in
 /usr/share/common-licenses/Apache-2.0.
EOF
chmod 0644 "$doc/copyright"
changes_date="$(date -u -R -d "@$SOURCE_DATE_EPOCH")"
{
  echo "ftms-bridge ($full_version) bookworm; urgency=medium"
  echo
  echo "  * ftms-bridge $version: the daemon ftms-bridged in /usr/sbin, the operator's"
  echo "    commands in /usr/bin, units for the daemon and the dashboard."
  echo
  echo " -- ftms-bridge maintainers <maintainers@users.noreply.a-seed-42d51611.example>  $changes_date"
} | gzip -9n > "$doc/changelog.Debian.gz"
chmod 0644 "$doc/changelog.Debian.gz"

# Man pages from the commands' own help (generate-manual reads --experimental-dump-help).
manual_date="$(date -u -d "@$SOURCE_DATE_EPOCH" +%Y-%m-%d)"
pages="$out/man"
rm -rf "$pages"
mkdir -p "$pages/1" "$pages/8"
"$manual_tool" "$root/usr/bin/ftms-bridge" --multi-page --section 1 --date "$manual_date" -o "$pages/1" >&2
"$manual_tool" "$root/usr/sbin/ftms-bridged" --section 8 --date "$manual_date" -o "$pages/8" >&2
# Debian names a subcommand's page command-subcommand(1), as git-commit(1), and its NAME must be
# that name (lintian's bad-whatis-entry); the synopsis keeps the command as it is typed. The
# help subcommand's page says nothing the main page does not.
rm -f "$pages/1/ftms-bridge.help.1"
for page in "$pages"/1/ftms-bridge.*.1; do
  sub="$(basename "$page" .1)"
  sub="${sub#ftms-bridge.}"
  sed -e "s/^\.Dt FTMS-BRIDGE\.[A-Z-]* 1$/.Dt FTMS-BRIDGE-$(echo "$sub" | tr a-z A-Z) 1/" \
    -e "0,/^\.Nm \"ftms-bridge $sub\"\$/s//.Nm ftms-bridge-$sub/" -e "s/^\.Nm\$/.Nm \"ftms-bridge $sub\"/" \
    "$page" > "$pages/1/ftms-bridge-$sub.1"
  rm "$page"
done
sed -i -e '/^\.Xr ftms-bridge\.help 1/d' -e 's/^\.Xr ftms-bridge\.\([a-z-]*\) 1/.Xr ftms-bridge-\1 1/' "$pages"/1/*.1
for page in "$pages"/1/*.1; do gzip -9n < "$page" > "$root/usr/share/man/man1/$(basename "$page").gz"; done
for page in "$pages"/8/*.8; do gzip -9n < "$page" > "$root/usr/share/man/man8/$(basename "$page").gz"; done
chmod 0644 "$root"/usr/share/man/man*/*.gz

# Depends: the libraries the binaries and the Swift runtime load, as dpkg-shlibdeps finds
# them, then bluez (the daemon talks to bluetoothd) and systemd (systemd-sysusers, the unit).
shlib_dir="$out/shlibdeps"
rm -rf "$shlib_dir"
mkdir -p "$shlib_dir/debian"
printf 'Source: ftms-bridge\n\nPackage: ftms-bridge\nArchitecture: any\n' > "$shlib_dir/debian/control"
shlibs="$(cd "$shlib_dir" && dpkg-shlibdeps -O "$root/usr/sbin/ftms-bridged" "$root/usr/bin/ftms-bridge" "$root/$private"/*.so 2>"$shlib_dir/stderr" \
  | sed -n 's/^shlibs:Depends=//p')" || fail "dpkg-shlibdeps failed: $(tail -n 1 "$shlib_dir/stderr")"
[ -n "$shlibs" ] || fail "dpkg-shlibdeps found no libraries"
depends="$shlibs, bluez, systemd"

installed_kib="$(du -sk --exclude=DEBIAN "$root" | cut -f1)"
cat > "$root/DEBIAN/control" <<EOF
Package: ftms-bridge
Version: $full_version
Architecture: $arch
Maintainer: ftms-bridge maintainers <maintainers@users.noreply.a-seed-42d51611.example>
Installed-Size: $installed_kib
Depends: $depends
Section: net
Priority: optional
Description: gym gateway for Bluetooth FTMS bikes and rowers
 ftms-bridge finds SolidFocus bikes and rowers over Bluetooth LE through BlueZ,
 decodes their Fitness Machine Service data, runs workout sessions, stores them
 in SQLite, uploads them to the SolidFocus backend and publishes live metrics on
 a local socket, MQTT and a gym-floor dashboard.
 .
 The daemon (ftms-bridged) runs as the service ftms-bridge.service under its own
 user; ftms-bridge holds the operator's commands (login, status, doctor, ...).
EOF
echo /etc/ftms-bridge/config.toml > "$root/DEBIAN/conffiles"
# The one lintian tag overridden, with its reason (docs/systemd.md): zlib inside swift-nio-extras.
install -d -m 0755 "$root/usr/share/lintian/overrides"
install -m 0644 systemd/debian/lintian-overrides "$root/usr/share/lintian/overrides/ftms-bridge"
for script in postinst prerm postrm; do
  install -m 0755 "systemd/debian/$script" "$root/DEBIAN/$script"
done
(cd "$root" && find usr -type f -print0 | sort -z | xargs -0 md5sum) > "$root/DEBIAN/md5sums"
chmod 0644 "$root/DEBIAN/control" "$root/DEBIAN/conffiles" "$root/DEBIAN/md5sums"
find "$root" -exec touch --no-dereference -d "@$SOURCE_DATE_EPOCH" {} +

package="$out/ftms-bridge_${full_version}_$arch.deb"
compression=(-Zxz)
[ "$config" = release ] || compression=(-Zgzip -z1)
dpkg-deb --root-owner-group "${compression[@]}" --build "$root" "$package" >&2

# lintian: errors fail; each warning kept is named in docs/systemd.md.
if [ "$lint" = yes ]; then
  lintian --tag-display-limit 0 --suppress-tags-from-file systemd/debian/lintian-kept "$package" > "$out/lintian.txt" 2>&1 || true
  if grep -q '^E: ' "$out/lintian.txt"; then
    grep '^E: ' "$out/lintian.txt" >&2
    fail "lintian reports errors (all of them in $out/lintian.txt)"
  fi
  if grep -q '^W: ' "$out/lintian.txt"; then
    grep '^W: ' "$out/lintian.txt" >&2
    fail "lintian warns beyond the ones docs/systemd.md keeps (systemd/debian/lintian-kept)"
  fi
fi
echo "package-deb: Depends: $depends" >&2
echo "package-deb: $(stat -c %s "$package") bytes; ftms-bridged $(stat -c %s "$root/usr/sbin/ftms-bridged") bytes, ftms-bridge $(stat -c %s "$root/usr/bin/ftms-bridge") bytes (stripped)" >&2
echo "$package"
