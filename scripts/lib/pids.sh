# Shared by scripts/test-bus.sh and scripts/fake-bluez.sh: is a recorded pid still our process?
# Sourced, not run.

# Whether pid is a live process (a zombie waiting for its reaper counts as gone).
alive() {
  local state
  state=$(sed -n 's/^.*) \([A-Za-z]\).*$/\1/p' "/proc/$1/stat" 2>/dev/null) || return 1
  [ -n "$state" ] && [ "$state" != Z ] && [ "$state" != X ]
}

# recorded_pid PIDFILE MARKER: prints the pid in PIDFILE if that process is alive and its
# command line contains MARKER (pids get reused), else fails.
recorded_pid() {
  [ -f "$1" ] || return 1
  local pid
  pid=$(cat "$1" 2>/dev/null) || return 1
  [[ "$pid" =~ ^[0-9]+$ ]] || return 1
  alive "$pid" || return 1
  tr '\0' ' ' < "/proc/$pid/cmdline" | grep -qF -- "$2" || return 1
  echo "$pid"
}
