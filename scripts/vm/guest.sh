#!/bin/bash
# Runs inside the test guest (started by the image's /sbin/ftms-vm-init): brings up the Bluetooth
# stack as a Debian 12 gateway has it and runs the scenarios named on the kernel command line.
#   system dbus-daemon -> btvirt (FTMS_VM_CONTROLLERS LE controllers on one simulated air) ->
#   bluetoothd 5.66 as Debian ships it (main.conf: [GATT] Channels = 1) -> btmon -w btmon.snoop,
#   and supervision.sh beside the scenarios
# Each scenario's output goes to RESULTS/NAME.log and one line to RESULTS/summary:
#   `NAME ok 12.3 s` or `NAME fail 12.3 s: <the scenario's last line>`.
# RESULTS/finished is written last: its presence tells run.sh the guest got to the end.
# guest-init starts it with sh; the rest is bash.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
set -u
results="$ftmsresults"
export FTMS_REPO="$ftmsrepo" RESULTS="$results" BIN="$ftmsrepo/.build/debug"
export FTMS_VM_CONTROLLERS="${ftmscontrollers:-4}"
IFS=, read -r -a settings <<< "${ftmsenv:-}"
[ ${#settings[@]} -gt 0 ] && export "${settings[@]}"
now() { awk '{print $1}' /proc/uptime; }
echo "guest: up at $(now) s"
if [ "$ftmsscenarios" = probe ]; then
  echo "probe ok $(now)" > "$results/summary"; echo "ok probe" > "$results/finished"; exit 0
fi

mkdir -p /run/dbus /var/lib/bluetooth /run/ftms-vm
dbus-daemon --system --fork --nopidfile
# Everything bluetoothd says and is asked on the bus, the evidence btmon cannot give: what a scan
# saw, which call failed. Line-buffered into the guest's tmpfs, copied to RESULTS at the end.
stdbuf -oL dbus-monitor --system "sender='org.bluez'" "destination='org.bluez'" > /run/ftms-vm/bluez-dbus.txt 2>&1 &
dbus_monitor=$!
modprobe hci_vhci

# btvirt in a slow guest sometimes misses a controller's reset (hci0: Opcode 0x0c03 failed: -110);
# then mgmt lists fewer controllers than asked for, and btvirt starts again.
controllers_listed() { btmgmt info 2>/dev/null | grep -c '^hci[0-9]*:' ; }
for attempt in 1 2 3; do
  btvirt -L -l"$FTMS_VM_CONTROLLERS" > "$results/btvirt.log" 2>&1 &
  btvirt_pid=$!
  for _ in $(seq 1 50); do
    [ "$(controllers_listed)" -ge "$FTMS_VM_CONTROLLERS" ] && break
    sleep 0.2
  done
  [ "$(controllers_listed)" -ge "$FTMS_VM_CONTROLLERS" ] && break
  echo "guest: btvirt attempt $attempt: mgmt lists $(controllers_listed) of $FTMS_VM_CONTROLLERS controllers; restarting it"
  kill "$btvirt_pid"; wait "$btvirt_pid" 2>/dev/null
  sleep 1
done
echo "guest: $(controllers_listed) controllers at $(now) s"

# btmon's capture, supervised: btmon 5.66 has segfaulted mid-boot here (on the packet it was
# decoding), which silently ended the boot's HCI evidence. A capture that ends unasked is named
# in btmon-supervision.log (its exit status, the time) and a new one goes on in btmon-N.snoop;
# the summary counts them.
supervise_btmon() {
  local part=0 file="$results/btmon.snoop" status
  while [ ! -e /run/ftms-vm/btmon.stop ]; do
    btmon -w "$file" > /dev/null 2>&1 &
    echo $! > /run/ftms-vm/btmon.pid
    wait $!; status=$?
    [ -e /run/ftms-vm/btmon.stop ] && break
    part=$((part + 1))
    signal=""
    [ "$status" -gt 128 ] && signal=" (signal $((status - 128)))"
    echo "btmon exited with status $status$signal at $(now) s; the capture goes on in btmon-$part.snoop" >> "$results/btmon-supervision.log"
    file="$results/btmon-$part.snoop"
    sleep 0.5
  done
}
supervise_btmon &
btmon_supervisor=$!
/usr/libexec/bluetooth/bluetoothd -n > "$results/bluetoothd.log" 2>&1 &
echo $! > /run/ftms-vm/bluetoothd.pid
for _ in $(seq 1 50); do
  dbus-send --system --print-reply --dest=org.bluez / org.freedesktop.DBus.ObjectManager.GetManagedObjects > /dev/null 2>&1 && break
  sleep 0.2
done
for index in $(seq 0 $((FTMS_VM_CONTROLLERS - 1))); do btmgmt --index "$index" power on > /dev/null 2>&1; done
echo "guest: bluetoothd ready at $(now) s"
# btvirt has no supervision timeout: supervision.sh ends the links it leaves with one end only.
# Its stdin is the console, as the scenarios' is: btmgmt quits at once, before mgmt answers, when
# its stdin is at end of file (a background job's /dev/null).
bash "$FTMS_REPO/scripts/vm/supervision.sh" < /dev/console &

overall=ok
IFS=, read -r -a scenarios <<< "$ftmsscenarios"
for scenario in "${scenarios[@]}"; do
  start=$(now)
  if timeout --kill-after=10 "${SCENARIO_TIMEOUT:-600}" bash "$FTMS_REPO/scripts/vm/scenarios/$scenario.sh" > "$results/$scenario.log" 2>&1; then verdict=ok; else verdict=fail; overall=fail; fi
  seconds=$(awk -v a="$start" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }')
  line="$scenario $verdict $seconds s"
  [ "$verdict" = fail ] && line="$line: $(tail -1 "$results/$scenario.log")"
  echo "$line" | tee -a "$results/summary"
  grep '^figure' "$results/$scenario.log" | sed "s/^/  $scenario /" | tee -a "$results/summary"
  # A scenario that restarted bluetoothd and then timed out takes that bluetoothd with it (timeout
  # signals the scenario's whole process group), and every later scenario then failed on
  # org.bluez's activation (Spawn.ChildExited): the next one gets bluetoothd as it was here.
  if ! kill -0 "$(cat /run/ftms-vm/bluetoothd.pid 2>/dev/null)" 2>/dev/null; then
    /usr/libexec/bluetooth/bluetoothd -n >> "$results/bluetoothd.log" 2>&1 &
    echo $! > /run/ftms-vm/bluetoothd.pid
    for _ in $(seq 1 50); do
      dbus-send --system --print-reply --dest=org.bluez / org.freedesktop.DBus.ObjectManager.GetManagedObjects > /dev/null 2>&1 && break
      sleep 0.2
    done
    for index in $(seq 0 $((FTMS_VM_CONTROLLERS - 1))); do btmgmt --index "$index" power on > /dev/null 2>&1; done
    echo "harness: bluetoothd was gone after $scenario; started again at $(now) s" | tee -a "$results/summary"
  fi
done
ended=$(grep -c 'ended:' "$results/links-ended.log" 2>/dev/null)
echo "harness: supervision.sh ended ${ended:-0} link(s) with one end only (btvirt has no supervision timeout; see links-ended.log)" | tee -a "$results/summary"
kill "$dbus_monitor" 2>/dev/null
touch /run/ftms-vm/btmon.stop
kill "$(cat /run/ftms-vm/btmon.pid 2>/dev/null)" 2>/dev/null
wait "$btmon_supervisor" 2>/dev/null
deaths=$(grep -c '^btmon exited' "$results/btmon-supervision.log" 2>/dev/null)
line="harness: the btmon capture died ${deaths:-0} time(s) and was restarted each time"
[ "${deaths:-0}" -gt 0 ] && line="$line; first: $(head -1 "$results/btmon-supervision.log") (btmon-supervision.log)"
echo "$line" | tee -a "$results/summary"
cp /run/ftms-vm/bluez-dbus.txt "$results/bluez-dbus.txt"
# A failure's capture as text, for reading on a host without btmon.
if [ "$overall" = fail ]; then
  for capture in "$results"/btmon.snoop "$results"/btmon-*.snoop; do
    [ -f "$capture" ] || continue
    timeout 120 btmon -r "$capture" 2>&1 | head -c 30000000 > "${capture%.snoop}.txt"
  done
fi
echo "$overall: ${#scenarios[@]} scenario(s), guest up $(now) s" > "$results/finished"
