#!/bin/bash
# `ftms-bridge control` through the real ATT Control Point: Request Control, Set Target Resistance
# Level, Start, Stop, each answered by an indication (80 op 01) that bluetoothd forwards from
# ftms-sim --peripheral; the peripheral's log shows what arrived over the air.
set -u
. "$FTMS_REPO/scripts/vm/scenarios/lib.sh"
start_peripheral hci1 bike:SF-Bike-0001 --rate 2
# A device the scan scenario heard expires 30 s after its advertising stopped, and control's own
# search is one window, which btvirt may leave silent (heard_by_gateway in lib.sh).
heard_by_gateway SF-Bike-0001 > /dev/null || fail "hci0 did not hear SF-Bike-0001 in 3 scan windows"
log="$RESULTS/peripheral-SF-Bike-0001.log"
for request in "--resistance 8" "--start" "--stop"; do
  start=$(now)
  # shellcheck disable=SC2086
  timeout 60 "$BIN/ftms-bridge" control SF-Bike-0001 --adapter hci0 $request > "$RESULTS/control.out" 2> "$RESULTS/control.err" \
    || fail "control $request exited $?: $(tail -1 "$RESULTS/control.err") $(tail -1 "$RESULTS/control.out")"
  cat "$RESULTS/control.out"
  grep -q success "$RESULTS/control.out" || fail "control $request: no success in $(tail -1 "$RESULTS/control.out")"
  figure "control $request $(seconds_since "$start") s"
done
grep -q 'control point 0450 -> 800401' "$log" || fail "the peripheral never answered 04 50 (resistance 8) with success"
grep -q 'control point 07 -> 800701' "$log" || fail "the peripheral never answered Start (07) with success"
grep 'control point' "$log"
