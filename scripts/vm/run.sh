#!/usr/bin/env bash
# Boots the Debian 12 test guest (scripts/vm/image.sh builds it once) and runs scenarios against
# real bluetoothd 5.66 and the kernel's Bluetooth stack on virtual controllers (hci_vhci + btvirt).
#
#   scripts/vm/run.sh SCENARIO...     e.g. scripts/vm/run.sh controllers scan monitor
#
# The scenarios are scripts/vm/scenarios/NAME.sh, run one after the other in one boot by guest.sh.
# The repository (with its .build) and /opt/swift are shared read-only over 9p at the same paths in
# the guest, so the debug binaries run there as built; the results folder is shared writable and
# gets the console log, bluetoothd's log, a btmon capture and one line per scenario in `summary`.
# Exit status: 0 when every scenario passed, 1 when one failed, 2 when the guest never finished.
#
# Environment: FTMS_VM_RESULTS (results folder; default a new one under /tmp), FTMS_VM_TIMEOUT
# (seconds before the guest is killed; default 600), FTMS_VM_ACCEL (kvm or tcg; default: kvm only
# if a probe boot with it succeeded once on this host), FTMS_VM_CONTROLLERS (btvirt controllers, 4),
# FTMS_VM_ENV (NAME=VALUE,… exported to the scenarios, as MONITOR_RUNS=5,RUN_RESTARTS=3).
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cache="${FTMS_BRIDGE_CACHE:-/var/cache/ftms-bridge}"
[ $# -gt 0 ] || { echo "usage: scripts/vm/run.sh SCENARIO..." >&2; exit 2; }
for scenario in "$@"; do
  [ "$scenario" = probe ] || [ -f "$repo/scripts/vm/scenarios/$scenario.sh" ] \
    || { echo "vm/run: no scenario $scenario (scripts/vm/scenarios/$scenario.sh)" >&2; exit 2; }
done
results="${FTMS_VM_RESULTS:-$(mktemp -d /tmp/ftms-vm.XXXXXX)}"
mkdir -p "$results"
# The image folder comes back in a file: what image.sh's tools print never mixes into it.
bash "$repo/scripts/vm/image.sh" "$results/image-path"
image="$(cat "$results/image-path")"
[ -f "$image/ready" ] || { echo "vm/run: no guest image at '$image'" >&2; exit 2; }
rm -f "$results/summary" "$results/finished"

# boot ACCEL TIMEOUT SCENARIOS: one guest run; the exit status is timeout(1)'s.
boot() {
  local accel=$1 seconds=$2 scenarios=$3 cpu
  if [ "$accel" = kvm ]; then cpu=(-enable-kvm -cpu host); else cpu=(-accel tcg -cpu max); fi
  timeout --kill-after=5 "$seconds" qemu-system-x86_64 "${cpu[@]}" -m 2048 -smp 2 \
    -nodefaults -display none -no-reboot -serial "file:$results/console.log" -nic none \
    -kernel "$image/vmlinuz" -initrd "$image/initrd.img" \
    -drive "file=$image/disk.ext4,format=raw,if=virtio,snapshot=on" \
    -virtfs "local,path=$repo,mount_tag=repo,security_model=none,readonly=on" \
    -virtfs "local,path=/opt/swift,mount_tag=swift,security_model=none,readonly=on" \
    -virtfs "local,path=$results,mount_tag=results,security_model=none" \
    -append "console=ttyS0 root=/dev/vda rw quiet panic=-1 init=/sbin/ftms-vm-init ftmsrepo=$repo ftmsresults=$results ftmsscenarios=$scenarios ftmscontrollers=${FTMS_VM_CONTROLLERS:-4} ftmsenv=${FTMS_VM_ENV:-}"
}

# KVM only when a guest really boots with it: nested KVM can exist and still hang the guest.
accel="${FTMS_VM_ACCEL:-}"
if [ -z "$accel" ]; then
  probe="$cache/vm-kvm-probe-$(uname -r)"
  if [ ! -f "$probe" ]; then
    verdict=tcg
    if [ -r /dev/kvm ] && [ -w /dev/kvm ]; then
      boot kvm 40 probe > /dev/null 2>&1 || true
      grep -q '^probe ok' "$results/summary" 2>/dev/null && verdict=kvm
      rm -f "$results/summary" "$results/finished"
    fi
    echo "$verdict" > "$probe"
  fi
  accel="$(cat "$probe")"
fi

started=$SECONDS
echo "vm/run: booting ($accel) for $*; results in $results" >&2
status=0
boot "$accel" "${FTMS_VM_TIMEOUT:-600}" "$(IFS=,; echo "$*")" || status=$?
[ -f "$results/summary" ] && cat "$results/summary"
if [ ! -f "$results/finished" ]; then
  [ "$status" = 124 ] && echo "vm/run: the guest did not finish within ${FTMS_VM_TIMEOUT:-600} s (killed); see $results/console.log" >&2 \
    || echo "vm/run: the guest stopped before finishing (qemu status $status); see $results/console.log" >&2
  exit 2
fi
echo "vm/run: $(cat "$results/finished"); $((SECONDS - started)) s on the host" >&2
grep -q '^fail' "$results/finished" && exit 1
exit 0
