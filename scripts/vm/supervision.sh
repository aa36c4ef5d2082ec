#!/bin/bash
# Runs in the test guest beside the scenarios (guest.sh starts it): the LE supervision timeout that
# btvirt never runs. A real link whose other end is gone ends within seconds, when the controller
# stops hearing its peer. btvirt has no such clock, and a controller reset on one end (bluetoothd
# powers its controllers off and on when it restarts, and in the guest one bluetoothd serves the
# gateway and the machines) can leave the other end a link to nothing: its controller forgets the
# handle without saying so, the kernel's HCI Disconnect is then answered "Unknown Connection
# Identifier" and the kernel keeps the link for good ("Failed to disconnect device: Busy"). Every
# later Connect through that controller "succeeds" at once and its services never resolve.
#
# Every INTERVAL seconds each controller's links (mgmt Get Connections) are compared with the other
# end's: a link one end lists and the other does not, three looks in a row, is ended: disconnected,
# and when the kernel still lists it a second later, its controller powered off and on (the only
# way the kernel lets go of it). Each ending is a line in RESULTS/links-ended.log.
set -u
# For controller_address and links_of (it starts nothing, so the helpers' cleanup has nothing to end).
. "$FTMS_REPO/scripts/vm/scenarios/lib.sh"
interval=${SUPERVISION_INTERVAL:-2}
log="$RESULTS/links-ended.log"
count=$FTMS_VM_CONTROLLERS

address=()
for ((i = 0; i < count; i++)); do
  address[i]=$(controller_address "$i")
done
# index_of ADDRESS: the guest controller with ADDRESS, or nothing.
index_of() {
  local i
  for ((i = 0; i < count; i++)); do [ "${address[i]}" = "$1" ] && { echo "$i"; return; }; done
}

declare -A looks
while sleep "$interval"; do
  links=()
  for ((i = 0; i < count; i++)); do links[i]=" $(links_of "$i" | tr '\n' ' ')"; done
  declare -A half_open=()
  for ((i = 0; i < count; i++)); do
    for peer in ${links[i]}; do
      j=$(index_of "$peer")
      [ -n "$j" ] || continue
      [[ "${links[j]}" == *" ${address[i]} "* ]] && continue
      half_open["$i $peer"]=1
    done
  done
  for key in "${!looks[@]}"; do [ -n "${half_open[$key]:-}" ] || unset "looks[$key]"; done
  for key in "${!half_open[@]}"; do
    looks[$key]=$(( ${looks[$key]:-0} + 1 ))
    [ "${looks[$key]}" -ge 3 ] || continue
    read -r i peer <<< "$key"
    btmgmt --index "$i" disconnect "$peer" > /dev/null 2>&1
    sleep 1
    how=disconnected
    if links_of "$i" | grep -qx "$peer"; then
      btmgmt --index "$i" power off > /dev/null 2>&1; sleep 1; btmgmt --index "$i" power on > /dev/null 2>&1
      how="powered off and on (the kernel kept the link after Disconnect)"
    fi
    echo "$(awk '{ print $1 }' /proc/uptime) hci$i: link to $peer (hci$(index_of "$peer")), which has no link back, ended: $how" >> "$log"
    unset "looks[$key]"
  done
  unset half_open
done
