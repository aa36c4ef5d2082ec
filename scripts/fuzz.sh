#!/usr/bin/env bash
# Fuzzes every FTMS decoder with libFuzzer (Fuzz/Sources/FuzzTarget.swift) for a bounded
# number of inputs or seconds, starting from the real-frame seed corpus in Fuzz/corpus.
#
#   scripts/fuzz.sh [--runs N] [--seconds S] [--jobs J]
#
# Defaults: 10,000,000 runs, at most 1200 s. Exit status is libFuzzer's: non-zero on a crash,
# with the input saved as Fuzz/crash-*. A separate scratch path keeps the sanitized build
# away from the normal one.
set -euo pipefail
cd "$(dirname "$0")/.."
runs=10000000
seconds=1200
while [ $# -gt 0 ]; do
  case "$1" in
    --runs) runs=$2; shift 2 ;;
    --seconds) seconds=$2; shift 2 ;;
    *) echo "fuzz.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
scratch=.build-fuzz
swift build -c release --scratch-path "$scratch" --product ftms-fuzz \
  -Xswiftc -sanitize=fuzzer,address -Xswiftc -DFUZZING -Xswiftc -use-ld=lld >&2
work=Fuzz/corpus-work
mkdir -p "$work"
log=$(mktemp)
set +e
"$scratch/release/ftms-fuzz" "$work" Fuzz/corpus -runs="$runs" -max_total_time="$seconds" \
  -max_len=64 -artifact_prefix=Fuzz/crash- -print_final_stats=1 2>"$log"
status=$?
set -e
grep -E "^(stat::number_of_executed_units|stat::average_exec_per_sec|Done|==[0-9]+==ERROR)" "$log" >&2 || true
executed=$(awk '/stat::number_of_executed_units/ {print $2}' "$log")
echo "fuzz: ${executed:-0} inputs executed, exit $status"
[ $status -eq 0 ] || tail -n 40 "$log" >&2
rm -f "$log"
exit $status
