#!/bin/bash
# `ftms-bridge monitor` of a rower (Rower Data 0x2AD1) served on hci2, alone.
set -u
. "$FTMS_REPO/scripts/vm/scenarios/lib.sh"
start_peripheral hci2 rower:SF-Rower-0001 --rate 2
start=$(now)
timeout 60 "$BIN/ftms-bridge" monitor SF-Rower-0001 --adapter hci0 --count 3 --json > "$RESULTS/rower.out" 2> "$RESULTS/rower.err" \
  || fail "monitor SF-Rower-0001 exited $?: $(tail -1 "$RESULTS/rower.err")"
grep -q '"rower_data"' "$RESULTS/rower.out" || fail "no rower_data frames: $(head -1 "$RESULTS/rower.out")"
head -1 "$RESULTS/rower.out"
figure "rower monitor $(seconds_since "$start") s"
