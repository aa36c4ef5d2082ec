#!/usr/bin/env bash
# README command two, and what CI runs: installs what is missing, then every test.
#
#   1. swift test: unit, property, golden-vector, real-frame and CLI-process tests
#   2. parity: random frames from an independent generator written from the FTMS 1.0 tables
#      (scripts/gen_frames.py) against `ftms-bridge decode`
#   3. fuzz: libFuzzer over every decoder from the seed corpus, bounded (FUZZ_RUNS)
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
swift build --build-tests
swift test --skip-build 2>&1 | tee .build/test-output.txt | grep -vE "^(Test Case|◇|↳|✔ Test [^r])" || true
status=${PIPESTATUS[0]}
grep -E "^(✔|✘) Test run|Executed .* tests" .build/test-output.txt || true
[ "$status" -eq 0 ] || { echo "test: swift test failed" >&2; exit "$status"; }
python3 scripts/parity.py --bin .build/debug/ftms-bridge --count "${PARITY_FRAMES:-20000}"
scripts/fuzz.sh --runs "${FUZZ_RUNS:-1000000}" --seconds 300
