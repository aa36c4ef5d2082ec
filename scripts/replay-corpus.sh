#!/usr/bin/env bash
# Times a release build replaying the whole corpus in captures/ in one run, against the budget
# of 2 s for all of it, and checks that the output is still the golden files' (in file order).
#
#   scripts/replay-corpus.sh            build release in $SCRATCH (default .build-corpus), time it
#   FTMS_BRIDGE=path scripts/replay-corpus.sh
#
# Uses hyperfine when it is installed (mean of 10 runs after a warm-up), else one timed run.
set -euo pipefail
cd "$(dirname "$0")/.."

budget_ms=${BUDGET_MS:-2000}
bin=${FTMS_BRIDGE:-}
if [ -z "$bin" ]; then
  scratch=${SCRATCH:-.build-corpus}
  swift build -c release --scratch-path "$scratch" --product ftms-bridge >&2
  bin="$scratch/release/ftms-bridge"
fi

shopt -s nullglob
captures=(captures/*.ftmscap captures/*.btsnoop)
[ ${#captures[@]} -gt 0 ] || { echo "replay-corpus: no captures in captures/" >&2; exit 1; }

expected=$(for capture in "${captures[@]}"; do cat "${capture%.*}.golden.jsonl"; done)
actual=$("$bin" replay --json "${captures[@]}" 2>/dev/null)
if [ "$actual" != "$expected" ]; then
  echo "replay-corpus: the output differs from the golden files; run swift test --filter CaptureCorpusTests" >&2
  exit 1
fi

notifications=$(cat captures/*.ftmscap | grep -c '"op":"notify"' || true)
if command -v hyperfine > /dev/null; then
  json=$(mktemp)
  trap 'rm -f "$json"' EXIT
  hyperfine --style basic --warmup 1 --runs 10 --export-json "$json" \
    "$bin replay --json ${captures[*]} > /dev/null 2>&1" >&2
  ms=$(python3 -c 'import json, sys; print(round(json.load(open(sys.argv[1]))["results"][0]["mean"] * 1000, 1))' "$json")
else
  start=$(date +%s%N)
  "$bin" replay --json "${captures[@]}" > /dev/null 2>&1
  ms=$(( ($(date +%s%N) - start) / 1000000 ))
fi
echo "replay-corpus: ${#captures[@]} captures (${notifications} .ftmscap notifications) in ${ms} ms (budget ${budget_ms} ms)"
python3 -c 'import sys; sys.exit(0 if float(sys.argv[1]) < float(sys.argv[2]) else 1)' "$ms" "$budget_ms" || {
  echo "replay-corpus: over budget" >&2
  exit 1
}
