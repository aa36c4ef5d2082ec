#!/usr/bin/env bash
# Rebuilds the replay corpus in captures/ (gpsd's `regress-driver -b`), then shows what changed.
#
#   scripts/regen-captures.sh                 captures and expected files from scripts/make-captures.py,
#                                             then every golden file from the current binary
#   scripts/regen-captures.sh NAME...         only these scenarios
#   scripts/regen-captures.sh --golden-only   only the golden files (after an intended behaviour change)
#
# The binary is $FTMS_BRIDGE if set, else a debug build in $SCRATCH (default .build-corpus).
# A changed expected or golden file is a reviewed change: say why in the commit message
# (captures/README.md).
set -euo pipefail
cd "$(dirname "$0")/.."

golden_only=false
names=()
for argument in "$@"; do
  case "$argument" in
    --golden-only) golden_only=true ;;
    -h|--help) sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "regen-captures: unknown option $argument" >&2; exit 2 ;;
    *) names+=("$argument") ;;
  esac
done

bin=${FTMS_BRIDGE:-}
if [ -z "$bin" ]; then
  scratch=${SCRATCH:-.build-corpus}
  swift build --scratch-path "$scratch" --product ftms-bridge >&2
  bin="$scratch/debug/ftms-bridge"
fi

if ! $golden_only; then
  python3 scripts/make-captures.py "${names[@]}"
fi

shopt -s nullglob
for capture in captures/*.ftmscap captures/*.btsnoop; do
  name=$(basename "${capture%.*}")
  if [ ${#names[@]} -gt 0 ] && [[ ! " ${names[*]} " == *" $name "* ]]; then continue; fi
  if ! "$bin" replay --json "$capture" > "captures/$name.golden.jsonl"; then
    echo "regen-captures: $capture did not replay cleanly" >&2
    exit 1
  fi
done

echo
git diff --stat -- captures/
git status --short -- captures/ | grep '^??' || true
echo "A changed expected or golden file needs a reason in the commit message (captures/README.md)."
