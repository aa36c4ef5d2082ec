#!/bin/bash
# The guest's stand-in for the LE supervision timeout (scripts/vm/supervision.sh) ends a link only
# one end still has. The gateway's hci0 links to SF-Bike-0001 on hci1; then hci1 is closed and
# opened under its kernel (hciconfig down, up: the kernel drops its side without an HCI Disconnect,
# and the controller's reset makes btvirt forget the link without telling hci0). hci0 is left a
# link to nothing, as a bluetoothd restart can leave it in this guest. The link is ended within
# 30 s, and a new Connect through hci0 resolves the bike's services.
set -u
. "$FTMS_REPO/scripts/vm/scenarios/lib.sh"
start_peripheral hci1 bike:SF-Bike-0001
heard_by_gateway SF-Bike-0001 > /dev/null || fail "hci0 did not hear SF-Bike-0001 in 3 scan windows"
address=$(controller_address 1)
device="/org/bluez/hci0/dev_${address//:/_}"
gateway=$(controller_address 0)

# linked INDEX ADDRESS: hciINDEX's kernel lists a link to ADDRESS.
linked() { links_of "$1" | grep -qx "$2"; }
connect_resolved "$device" "$RESULTS/supervision-connect.log" || fail "the first Connect through hci0 did not resolve SF-Bike-0001's services: $(tail -1 "$RESULTS/supervision-connect.log")"
linked 1 "$gateway" || fail "hci1 lists no link to the gateway after Connect"
hciconfig hci1 down; hciconfig hci1 up
start=$(now)
linked 0 "$address" || fail "hci0 has no link left to SF-Bike-0001 after hci1's reset: nothing for supervision.sh to end"
linked 1 "$gateway" && fail "hci1 still lists the link after its reset"
until ! linked 0 "$address"; do
  awk -v s="$(seconds_since "$start")" 'BEGIN { exit !(s > 30) }' && fail "hci0 still lists its link to nothing 30 s after hci1's reset"
  sleep 0.5
done
ended=$(seconds_since "$start")
wait_for_line "$RESULTS/links-ended.log" "hci0: link to $address" 10 || fail "hci0's link ended, but not by supervision.sh (no line in links-ended.log)"
figure "a link to nothing ended $ended s after the other end's reset: $(grep -m1 "hci0: link to $address" "$RESULTS/links-ended.log" | sed 's/.*ended: //')"
connect_resolved "$device" "$RESULTS/supervision-connect.log" || fail "a Connect through hci0 after the link was ended did not resolve SF-Bike-0001's services"
figure "hci0 usable again: Connect resolved SF-Bike-0001's services"
dbus-send --system --print-reply --dest=org.bluez "$device" org.bluez.Device1.Disconnect > /dev/null 2>&1
