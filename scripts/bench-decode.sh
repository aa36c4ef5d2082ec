#!/usr/bin/env bash
# bench-decode.sh — `ftms-bridge decode` as a bulk tool, whole process: hex lines in, JSON lines out
# to a file. Prints frames/s per characteristic (median of R runs) and over all of them, and with
# --compare OLD_BIN checks that OLD_BIN writes byte-for-byte the same output for the same input.
#
# Why: the decode CLI is used to turn large captures and logs into JSON (docs/performance.md's
# bar is 5 million frames/s whole-process); a micro-benchmark of the codec says nothing about
# reading, parsing, writing and process start-up, so this times the real command on real files.
#
# Input: N random frames per characteristic from scripts/gen_frames.py (every characteristic,
# including the short and over-long Feature and Training Status values it mixes in), one hex
# frame per line. Output goes to a file in $BENCH_DIR (default: /dev/shm when it exists, so the
# figure is the process's and not the disk's writeback; set BENCH_DIR=/tmp for a disk-backed
# file). Set BENCH_CACHE=DIR to keep the generated input there and reuse it on the next run.
# Builds nothing: point it at a release binary.
#
# usage: scripts/bench-decode.sh [--bin PATH] [--frames N] [--runs R] [--characteristics "2ad2 2ad1"]
#                                [--spaced] [--compare OLD_BIN] [--threads N] [--overwrite]
# --threads N passes `--threads N` to decode (default: decode's own, the online CPUs up to 4);
# --threads 1 is the one-decoder stream.
# Each run writes a new file: the previous run's output is removed first, outside the timing.
# Truncating it in the shell's `>` instead (in the process that then becomes decode) would
# charge freeing the last run's ~370 MB of page cache, about 50 ns a frame, to decode;
# --overwrite measures that way.
set -euo pipefail
cd "$(dirname "$0")/.."

BIN=.build/release/ftms-bridge FRAMES=1000000 RUNS=5 SPACED="" COMPARE="" THREADS="" OVERWRITE=0
CHARS="2ad2 2ad1 2acc 2ada 2ad9 2ad3 2ad4 2ad5 2ad6 2ad7 2ad8"
while [[ $# -gt 0 ]]; do
  case "$1" in
    --bin) BIN=$2; shift 2 ;;
    --frames) FRAMES=$2; shift 2 ;;
    --runs) RUNS=$2; shift 2 ;;
    --characteristics) CHARS=$2; shift 2 ;;
    --spaced) SPACED=--spaced; shift ;;
    --compare) COMPARE=$2; shift 2 ;;
    --threads) THREADS="--threads $2"; shift 2 ;;
    --overwrite) OVERWRITE=1; shift ;;
    *) echo "bench-decode: unknown argument $1 (see the header of $0)" >&2; exit 2 ;;
  esac
done
[[ -x "$BIN" ]] || { echo "bench-decode: no ftms-bridge binary at $BIN (build it, or pass --bin)" >&2; exit 2; }
[[ -z "$COMPARE" || -x "$COMPARE" ]] || { echo "bench-decode: no binary at $COMPARE" >&2; exit 2; }
if [[ -z "${BENCH_DIR:-}" ]]; then BENCH_DIR=/tmp; [[ -d /dev/shm && -w /dev/shm ]] && BENCH_DIR=/dev/shm; fi
TMP=$(mktemp -d "$BENCH_DIR/bench-decode.XXXXXX")
trap 'rm -rf "$TMP"' EXIT

# median_seconds RUNS COMMAND OUTPUT -> "WALL CPU USER SYS": median wall time and median CPU
# time (user + system, all threads; then each alone) of COMMAND (a shell string), after one
# warm-up, with OUTPUT removed before each run unless --overwrite. The CPU figure is what the
# process costs whatever else the machine is doing; the wall figure is what a user waits.
median_seconds() {
  python3 - "$1" "$2" "$3" "$OVERWRITE" <<'EOF'
import os, resource, statistics, subprocess, sys, time
runs, cmd, output, overwrite = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4] == "1"
walls, cpus, users, systems = [], [], [], []
for i in range(runs + 1):
    if not overwrite and os.path.exists(output):
        os.unlink(output)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    p = subprocess.run(["/bin/sh", "-c", "exec " + cmd])
    elapsed = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if p.returncode not in (0, 1):
        sys.exit(f"bench-decode: {cmd} exited {p.returncode}")
    if i > 0:
        walls.append(elapsed)
        cpus.append(after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime)
        users.append(after.ru_utime - before.ru_utime)
        systems.append(after.ru_stime - before.ru_stime)
print(statistics.median(walls), statistics.median(cpus), statistics.median(users), statistics.median(systems))
EOF
}

ROWS=() TOTAL_FRAMES=0 TOTAL_SECONDS=0 TOTAL_CPU=0 TOTAL_BYTES=0 DIFFS=0
for c in $CHARS; do
  input="${BENCH_CACHE:-$TMP}/$c-$FRAMES${SPACED:+-spaced}.hex"
  [[ -s "$input" ]] || python3 scripts/gen_frames.py --characteristic "$c" --count "$FRAMES" --seed 15 --hex-only $SPACED > "$input"
  read -r s cpu user sys < <(median_seconds "$RUNS" "'$BIN' decode $c $THREADS < '$input' > '$TMP/out.json'" "$TMP/out.json")
  bytes=$(stat -c %s "$TMP/out.json")
  lines=$(wc -l < "$TMP/out.json")
  [[ "$lines" -eq "$FRAMES" ]] || echo "bench-decode: warning: $c gave $lines lines for $FRAMES frames" >&2
  same="-"
  if [[ -n "$COMPARE" ]]; then
    "$COMPARE" decode "$c" < "$input" > "$TMP/old.json" || true
    if cmp -s "$TMP/old.json" "$TMP/out.json"; then same="identical"; else same="DIFFERENT"; DIFFS=$((DIFFS + 1)); fi
    rm -f "$TMP/old.json"
  fi
  ROWS+=("| $c | $FRAMES | $(printf %.3f "$s") | $(python3 -c "print(f'{$FRAMES / $s / 1e6:.2f}')") | $(python3 -c "print(f'{$cpu * 1e9 / $FRAMES:.0f} | {$user * 1e9 / $FRAMES:.0f} | {$sys * 1e9 / $FRAMES:.0f}')") | $((bytes / FRAMES)) | $same |")
  TOTAL_FRAMES=$((TOTAL_FRAMES + FRAMES))
  TOTAL_BYTES=$((TOTAL_BYTES + bytes))
  TOTAL_SECONDS=$(python3 -c "print($TOTAL_SECONDS + $s)")
  TOTAL_CPU=$(python3 -c "print($TOTAL_CPU + $cpu)")
done

echo
echo "| characteristic | frames | median wall s | M frames/s | CPU ns/frame | user | system | JSON bytes/frame | vs --compare |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|---|"
printf '%s\n' "${ROWS[@]}"
echo
python3 -c "print(f'all: {$TOTAL_FRAMES} frames in {$TOTAL_SECONDS:.3f} s (sum of medians): {$TOTAL_FRAMES / $TOTAL_SECONDS / 1e6:.2f} M frames/s, {$TOTAL_BYTES / $TOTAL_SECONDS / 1e6:.0f} MB/s of JSON; {$TOTAL_CPU * 1e9 / $TOTAL_FRAMES:.0f} ns of CPU per frame')"
echo "\`decode UUID < hex > $BENCH_DIR/file\`, median of $RUNS runs after 1 warm-up, process start-up included;"
[[ $OVERWRITE -eq 1 ]] && echo "each run truncating the last run's output (--overwrite)." || echo "each run writing a new file."
echo "Host: $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)."
if [[ -n "$COMPARE" ]]; then
  [[ $DIFFS -eq 0 ]] && echo "output identical to $COMPARE for every characteristic" || { echo "bench-decode: output differs from $COMPARE for $DIFFS characteristic(s)" >&2; exit 1; }
fi
