#!/bin/bash
# `ftms-bridge scan` on real bluetoothd finds the SF machines ftms-sim serves on hci1 and hci2 and
# ignores the decoy on hci3: SF-Bike-9999, an FTMS bike with a SolidFocus name but no 0xFE01.
set -u
. "$FTMS_REPO/scripts/vm/scenarios/lib.sh"
start_peripheral hci1 bike:SF-Bike-0001
start_peripheral hci2 rower:SF-Rower-0001
start_peripheral hci3 ftms:SF-Bike-9999
start=$(now)
windows=$(heard_by_gateway SF-Bike-0001 SF-Rower-0001) || fail "scan did not find SF-Bike-0001 and SF-Rower-0001 in 3 windows of 5 s"
figure "scan windows until both machines were heard: $windows (see heard_by_gateway in lib.sh)"
scan_window "$RESULTS/scan.out" --timeout 5 || fail "scan exited $?: $(tail -1 "$RESULTS/scan.out")"
cat "$RESULTS/scan.out"
dump_objects "$RESULTS/scan-objects.txt"
grep -q 'SF-Bike-0001' "$RESULTS/scan.out" || fail "scan did not find SF-Bike-0001"
grep -q 'SF-Rower-0001' "$RESULTS/scan.out" || fail "scan did not find SF-Rower-0001"
grep -q 'SF-Bike-9999' "$RESULTS/scan.out" && fail "scan listed the decoy SF-Bike-9999 (no 0xFE01)"
# Up to three windows, as for the machines (scan_window in lib.sh).
any_windows=0
for window in 1 2 3; do
  scan_window "$RESULTS/scan-any.out" --timeout 6 --any-ftms || fail "scan --any-ftms exited $?"
  grep -q 'SF-Bike-9999' "$RESULTS/scan-any.out" && { any_windows=$window; break; }
done
cat "$RESULTS/scan-any.out"
dump_objects "$RESULTS/scan-any-objects.txt"
[ "$any_windows" -gt 0 ] || fail "scan --any-ftms did not list the FTMS decoy SF-Bike-9999 in 3 windows"
figure "scan --any-ftms listed the decoy in window $any_windows"
grep -q ' 127 dBm' "$RESULTS/scan.out" && echo "note: RSSI 127 (HCI's 'not available') printed as a level"
figure "scan found 2 machines, decoy ignored, $(seconds_since "$start") s"
