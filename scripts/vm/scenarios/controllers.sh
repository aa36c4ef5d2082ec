#!/bin/bash
# The harness itself: bluetoothd sees every btvirt controller, powered, and bluetoothctl talks to it.
set -u
. "$FTMS_REPO/scripts/vm/scenarios/lib.sh"
count=$(btmgmt info | grep -c '^hci[0-9]*:')
[ "$count" -ge "$FTMS_VM_CONTROLLERS" ] || fail "mgmt lists $count controllers, not $FTMS_VM_CONTROLLERS"
adapters=$(bluetoothctl list | grep -c '^Controller')
[ "$adapters" -ge "$FTMS_VM_CONTROLLERS" ] || fail "bluetoothd has $adapters adapters, not $FTMS_VM_CONTROLLERS"
bluetoothctl --version
btmgmt info
figure "controllers $count, adapters $adapters"
