#!/usr/bin/env bash
# Runs a command where the host's default paths hold decoys: the proof that no test reads,
# writes or connects to /run/ftms-bridge, /var/lib/ftms-bridge or /etc/ftms-bridge (a test
# that did would drive the machines of a daemon running on the box).
#
#   scripts/lib/host-decoys.sh --check          can this box make the decoys? (root, unshare)
#   scripts/lib/host-decoys.sh LOG COMMAND...   runs COMMAND among the decoys
#
# In private mount and PID namespaces (`unshare --mount --pid`: the host's own mounts are
# left alone, and whatever COMMAND leaves running, a test runner its timeout killed the parent
# of or a child a test leaked, is killed with the namespace when COMMAND is done):
#   /run/ftms-bridge      read-only; control.sock and metrics.sock served by decoy-daemon.py,
#                         which answers every connection with an error and appends it to LOG
#   /var/lib/ftms-bridge  read-only; an ftms-bridge.sqlite that is not a database
#   /etc/ftms-bridge      read-only; a config.toml that does not parse
# Each decoy is mounted inside an overlay of its parent (the host's directory below, writes
# kept in the namespace): a directory the host lacks is made there, not on the host, and the
# host creating or removing its own /run/ftms-bridge meanwhile cannot unmount the decoy.
#
# Exit status: COMMAND's; 3 if COMMAND passed but something connected to a decoy (the log is
# printed) or the decoy was gone before the end; 4 if the decoys could not be made.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
targets=(/run/ftms-bridge /var/lib/ftms-bridge /etc/ftms-bridge)

if [ "${1:-}" = "--check" ]; then
  probe=$(mktemp -d /tmp/ftms-decoys-check.XXXXXX)
  status=0
  "$0" "$probe/log" true > "$probe/out" 2>&1 || status=$?
  [ "$status" -eq 0 ] || sed 's/^/  /' "$probe/out" >&2
  rm -rf "$probe"
  exit "$status"
fi

if [ "${1:-}" != "--inside" ]; then
  [ $# -ge 2 ] || { echo "usage: host-decoys.sh --check | LOG COMMAND..." >&2; exit 2; }
  [ "$(id -u)" -eq 0 ] || { echo "host-decoys: needs root for a private mount namespace (unshare --mount)" >&2; exit 4; }
  command -v unshare > /dev/null || { echo "host-decoys: no unshare (util-linux)" >&2; exit 4; }
  log=$(realpath -m "$1")
  shift
  mkdir -p "$(dirname "$log")"
  : > "$log"
  # The namespace's scratch (overlay layers, the ready file) is a tmpfs mounted on this
  # directory inside the namespace only; the host sees it empty and it is removed after.
  scratch=$(mktemp -d /tmp/ftms-decoys.XXXXXX)
  status=0
  unshare --mount --propagation private --pid --fork --mount-proc -- "$0" --inside "$log" "$scratch" "$@" || status=$?
  rmdir "$scratch" 2> /dev/null || true
  exit "$status"
fi

shift
log=$1
scratch=$2
shift 2
cannot() { echo "host-decoys: cannot make the decoys: $*" >&2; exit 4; }
mount -t tmpfs -o mode=0700,size=256m decoys "$scratch" || cannot "tmpfs on $scratch"
for target in "${targets[@]}"; do
  parent=$(dirname "$target")
  layer="$scratch/overlay${parent//\//_}"
  mkdir -p "$layer/upper" "$layer/work"
  mount -t overlay overlay -o "lowerdir=$parent,upperdir=$layer/upper,workdir=$layer/work" "$parent" \
    || cannot "an overlay on $parent to hold $target"
  mkdir -p "$target"
  mount -t tmpfs -o mode=0755,size=1m decoy "$target" || cannot "tmpfs on $target"
done
echo "decoy: not a database; a test opened the host's default state directory instead of its own --state-dir" \
  > /var/lib/ftms-bridge/ftms-bridge.sqlite
echo "decoy: this file does not parse; a test read the host's default config instead of its own --config" \
  > /etc/ftms-bridge/config.toml
/usr/bin/python3 "$here/decoy-daemon.py" /run/ftms-bridge "$log" "$scratch/ready" &
decoy=$!
for _ in $(seq 1 200); do
  [ -s "$scratch/ready" ] && break
  kill -0 "$decoy" 2> /dev/null || cannot "decoy-daemon.py exited"
  sleep 0.05
done
[ -s "$scratch/ready" ] || cannot "decoy-daemon.py did not listen within 10 s"
for target in "${targets[@]}"; do
  mount -o remount,ro "$target" || cannot "read-only $target"
done

status=0
"$@" || status=$?

gone=()
kill -0 "$decoy" 2> /dev/null || gone+=("the decoy daemon (exit status: $(wait "$decoy"; echo $?))")
for socket in control.sock metrics.sock; do [ -S "/run/ftms-bridge/$socket" ] || gone+=("/run/ftms-bridge/$socket"); done
kill "$decoy" 2> /dev/null || true
wait "$decoy" 2> /dev/null || true
if [ -s "$log" ]; then
  echo "host-decoys: $(wc -l < "$log") connections to the host's default sockets (a test must pass its own paths):" >&2
  sed 's/^/  /' "$log" >&2
  [ "$status" -ne 0 ] || status=3
fi
if [ ${#gone[@]} -gt 0 ]; then
  echo "host-decoys: gone before the end: ${gone[*]}" >&2
  [ "$status" -ne 0 ] || status=3
fi
exit "$status"
