#!/usr/bin/env bash
# The long soak: machines kept connected for minutes through link drops and Control
# Point commands, on a private dbus-daemon with the fake BlueZ, failing on any growth
# in memory, file descriptors, calls awaiting replies or waiters.
#
#   scripts/soak.sh [SECONDS] [MACHINES]      defaults: 300 s, 8 machines
set -euo pipefail
cd "$(dirname "$0")/.."
swift build -c release --product ftms-soak >&2
.build/release/ftms-soak --seconds "${1:-300}" --machines "${2:-8}" --rate 4
