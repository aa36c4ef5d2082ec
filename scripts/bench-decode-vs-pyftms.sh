#!/usr/bin/env bash
# bench-decode-vs-pyftms.sh — decode throughput of `ftms-bridge decode` vs pyftms on the same frames.
#
# Why: we want a measured number for "how much faster than the Python reference" rather than a
# guess. Generates N random valid frames per characteristic (scripts/gen_frames.py --hex-only),
# then times `ftms-bridge decode UUID < file > /dev/null` and `pyftms_decode.py UUID --bench < file`
# (hyperfine when installed, else a median-of-runs Python loop) and prints a markdown table.
# Builds nothing: point it at an existing release binary.
#
# usage: scripts/bench-decode-vs-pyftms.sh [--bin PATH] [--frames N] [--runs R] [--py-runs R]
#                                          [--characteristics "2ad2 2ad1"]
# env: HYPERFINE=none forces the Python timing loop.
set -euo pipefail
cd "$(dirname "$0")/.."

BIN=.build/release/ftms-bridge FRAMES=1000000 RUNS=5 PYRUNS=3 CHARS="2ad2 2ad1"
while [[ $# -gt 0 ]]; do
  case "$1" in
    --bin) BIN=$2; shift 2 ;;
    --frames) FRAMES=$2; shift 2 ;;
    --runs) RUNS=$2; shift 2 ;;
    --py-runs) PYRUNS=$2; shift 2 ;;
    --characteristics) CHARS=$2; shift 2 ;;
    *) echo "bench: unknown argument $1 (see the header of $0)" >&2; exit 2 ;;
  esac
done
[[ -x "$BIN" ]] || { echo "bench: no ftms-bridge binary at $BIN (build it, or pass --bin)" >&2; exit 2; }
PY=$(scripts/pyftms-env.sh) || { echo "bench: pyftms venv unavailable (scripts/pyftms-env.sh)" >&2; exit 3; }

TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

# median_seconds RUNS WARMUP COMMAND -> median wall time of COMMAND (a shell string) in seconds
median_seconds() {
  local runs=$1 warmup=$2 cmd=$3
  if command -v "${HYPERFINE:-hyperfine}" >/dev/null; then
    "${HYPERFINE:-hyperfine}" --style none --runs "$runs" --warmup "$warmup" --export-json "$TMP/h.json" "$cmd" >&2
    python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["results"][0]["median"])' "$TMP/h.json"
  else
    python3 - "$runs" "$warmup" "$cmd" <<'EOF'
import statistics, subprocess, sys, time
runs, warmup, cmd = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
times = []
for i in range(warmup + runs):
    t = time.perf_counter()
    subprocess.run(cmd, shell=True, check=True)
    if i >= warmup:
        times.append(time.perf_counter() - t)
print(statistics.median(times))
EOF
  fi
}

rate() { python3 -c 'import sys; print(f"{float(sys.argv[1]) / float(sys.argv[2]):,.0f}")' "$@"; }

ROWS=()
for c in $CHARS; do
  echo "bench: generating $FRAMES frames for $c" >&2
  python3 scripts/gen_frames.py --characteristic "$c" --count "$FRAMES" --seed 42 --hex-only > "$TMP/$c.hex"
  lines=$("$BIN" decode "$c" < "$TMP/$c.hex" | wc -l)
  [[ "$lines" -eq "$FRAMES" ]] || echo "bench: warning: ftms-bridge printed $lines lines for $FRAMES frames" >&2
  swift_s=$(median_seconds "$RUNS" 1 "'$BIN' decode $c < '$TMP/$c.hex' > /dev/null")
  py_s=$(median_seconds "$PYRUNS" 0 "'$PY' scripts/pyftms_decode.py $c --bench < '$TMP/$c.hex' 2> /dev/null")
  ratio=$(python3 -c 'import sys; print(f"{float(sys.argv[2]) / float(sys.argv[1]):.1f}x")' "$swift_s" "$py_s")
  ROWS+=("| $c | $FRAMES | $(printf %.3f "$swift_s") | $(rate "$FRAMES" "$swift_s") | $(printf %.3f "$py_s") | $(rate "$FRAMES" "$py_s") | $ratio |")
done

echo
echo "| characteristic | frames | ftms-bridge median s | ftms-bridge frames/s | pyftms median s | pyftms frames/s | speed-up |"
echo "|---|---:|---:|---:|---:|---:|---:|"
printf '%s\n' "${ROWS[@]}"
echo
echo "ftms-bridge: \`decode UUID < hex > /dev/null\` (hex parse, decode, JSON out), median of $RUNS runs after 1 warm-up."
echo "pyftms $("$PY" -c 'import importlib.metadata as m; print(m.version("pyftms"))'): \`pyftms_decode.py UUID --bench\` (hex parse, deserialize, _asdict; no JSON), median of $PYRUNS runs;"
echo "both include process start-up. Host: $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)."
