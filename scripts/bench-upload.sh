#!/usr/bin/env bash
# The upload bar: 10,000 pending sessions drain to the loopback reference backend in ≤ 10 s.
#
#   scripts/bench-upload.sh [SESSIONS] [RUNS]      default 10000 sessions, 3 runs
#
# Each run: a capture of SESSIONS rides (written here) goes through `ftms-bridge replay --queue`
# into a fresh state directory, the gateway logs in to a fresh `ftms-backend`, and
# `ftms-bridge upload` is timed until the queue is empty (batches of 20, each stored with a
# FULL-synced commit). The run then checks that the backend holds every session once and the
# store agrees. Release builds; SCRATCH_PATH picks the build directory (default .build).
set -euo pipefail
cd "$(dirname "$0")/.."
sessions=${1:-10000}
runs=${2:-3}
scratch=${SCRATCH_PATH:-.build}
swift build -c release --scratch-path "$scratch" --product ftms-bridge >&2
swift build -c release --scratch-path "$scratch" --product ftms-backend >&2
bin=$scratch/release
work=$(mktemp -d)
backend_pid=
cleanup() {
  [ -n "$backend_pid" ] && kill "$backend_pid" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

# SESSIONS rides on one bike: 64 s at 25 km/h, 85 rpm, 165 W (a sample every 2 s), each ended
# by the console's Stop (Fitness Machine Status 0x02 0x01) and a still sample (after a stop the
# engine waits for stillness), the next starting 10 s later.
python3 - "$sessions" > "$work/rides.ftmscap" <<'PY'
import sys
count = int(sys.argv[1])
out = sys.stdout
out.write('{"format":"ftmscap","version":1,"start":"2026-01-05T06:00:00Z","machine":{"name":"SF-Bike-0001",'
          '"address":"C0:11:22:33:44:01","manufacturer":"SolidFocus","model":"SF-Bike-M1","type":"bike"}}\n')
out.write('{"t":0.1,"event":"connected"}\n')
t = 1.0
for _ in range(count):
    for _ in range(33):
        out.write('{"t":%.1f,"uuid":"2ad2","op":"notify","hex":"4400c409aa00a500"}\n' % t)
        t += 2.0
    out.write('{"t":%.1f,"uuid":"2ada","op":"notify","hex":"0201"}\n' % (t - 1.0))
    out.write('{"t":%.1f,"uuid":"2ad2","op":"notify","hex":"4400000000000000"}\n' % t)
    t += 10.0
PY

for run in $(seq "$runs"); do
  state=$work/state-$run
  "$bin/ftms-bridge" replay --queue --state-dir "$state" "$work/rides.ftmscap" > /dev/null 2> "$work/replay.err" \
    || { cat "$work/replay.err" >&2; exit 1; }
  queued=$("$bin/ftms-bridge" status --json --state-dir "$state" | python3 -c 'import json,sys; print(json.load(sys.stdin)["pending"])')
  [ "$queued" -eq "$sessions" ] || { echo "bench-upload: replay queued $queued sessions, expected $sessions" >&2; exit 1; }

  "$bin/ftms-backend" --port 0 --quiet > "$work/backend.out" 2> "$work/backend.err" &
  backend_pid=$!
  url=
  for _ in $(seq 200); do
    url=$(sed -n 's/^listening //p' "$work/backend.out")
    [ -n "$url" ] && break
    sleep 0.05
  done
  [ -n "$url" ] || { cat "$work/backend.err" >&2; exit 1; }
  echo "test:bench-rider" | "$bin/ftms-bridge" login --provider test --state-dir "$state" --backend "$url" --time-zone UTC > /dev/null

  start=$(date +%s%N)
  "$bin/ftms-bridge" upload --state-dir "$state" --backend "$url" --time-zone UTC > "$work/upload.log"
  end=$(date +%s%N)

  left=$("$bin/ftms-bridge" status --json --state-dir "$state" | python3 -c 'import json,sys; s=json.load(sys.stdin); print(s["pending"], s["uploaded"])')
  held=$(curl -sf "$url/_admin/sessions" | python3 -c 'import json,sys; s=json.load(sys.stdin)["sessions"]; print(len(s), len({x["session_id"] for x in s}), max(x["received"] for x in s))')
  [ "$left" = "0 $sessions" ] || { echo "bench-upload: the store says pending/uploaded = $left" >&2; exit 1; }
  [ "$held" = "$sessions $sessions 1" ] || { echo "bench-upload: the backend holds (sessions, ids, max received) = $held" >&2; exit 1; }
  kill "$backend_pid"
  wait "$backend_pid" 2>/dev/null || true
  backend_pid=

  batches=$(grep -c '^batch ' "$work/upload.log")
  awk -v ns=$((end - start)) -v n="$sessions" -v b="$batches" -v r="$run" \
    'BEGIN { s = ns / 1e9; printf "run %d: %d sessions in %d batches drained in %.2f s (%.0f sessions/s; bar: 10 s)\n", r, n, b, s, n / s }'
done
