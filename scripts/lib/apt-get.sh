# Sourced by the scripts that install Debian packages (scripts/install-deps.sh, scripts/vm/image.sh).
#
# apt_get ARGUMENTS...: `apt-get ARGUMENTS` as root (through sudo when needed), non-interactive,
# waiting for another apt or dpkg to finish instead of failing at once. On a box where
# unattended-upgrades or apt-daily runs, the first `apt-get` of a run otherwise meets their locks
# and fails ("Could not get lock ..."), and with it the whole build step. dpkg's lock is waited
# for by apt itself (DPkg::Lock::Timeout); the package lists' lock, which `apt-get update` takes
# and that option does not cover, is waited for here, by trying again every 5 s. Either wait ends
# after APT_LOCK_WAIT seconds (600).
apt_get() {
  local wait="${APT_LOCK_WAIT:-600}" sudo="" errors status
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  local deadline=$((SECONDS + wait))
  errors="$(mktemp)"
  while true; do
    status=0
    DEBIAN_FRONTEND=noninteractive $sudo apt-get -o "DPkg::Lock::Timeout=$wait" "$@" 2> "$errors" || status=$?
    if [ "$status" -ne 0 ] && grep -q 'Could not get lock\|Unable to lock' "$errors" && [ "$SECONDS" -lt "$deadline" ]; then
      echo "apt-get $1: another apt or dpkg holds its lock ($(grep -m1 -o 'held by process [0-9]* ([^)]*)' "$errors" || echo 'a lock file')); waiting" >&2
      sleep 5
      continue
    fi
    cat "$errors" >&2
    rm -f "$errors"
    return "$status"
  done
}
