#!/usr/bin/env bash
# The VM step as a new checkout meets it, on a loaded host: CLONES fresh clones of HEAD in a row, each
# built, then `scripts/test.sh vm` run with HOGS busy loops on the host (a gateway that is also
# uploading and writing its journal). The bar: the step passes on its first guest boot in every clone
# (scripts/test.sh gives a failed boot one retry in a fresh guest; a clone that needed it fails here).
#
#   scripts/vm/fresh-clones.sh [--clones 3] [--host-hogs 2] [--keep]
#
# The hogs run only during the VM step: they would slow the build, which proves nothing here.
# Each clone and its logs go to a new /tmp/ftms-clones.*/N (removed after a pass unless --keep);
# the guest image is the shared cache's, as in CI. Exit status 0 when every clone passed first time.
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
clones=3 hogs=2 keep=no
while [ $# -gt 0 ]; do
  case "$1" in
    --clones) clones="$2"; shift 2 ;;
    --host-hogs) hogs="$2"; shift 2 ;;
    --keep) keep=yes; shift ;;
    *) echo "vm/fresh-clones: unknown argument $1 (see the header of $0)" >&2; exit 2 ;;
  esac
done
work="$(mktemp -d /tmp/ftms-clones.XXXXXX)"
commit="$(git -C "$repo" rev-parse --short HEAD)"
hog_pids=()
stop_hogs() { [ ${#hog_pids[@]} -eq 0 ] || kill "${hog_pids[@]}" 2>/dev/null || true; hog_pids=(); }
trap stop_hogs EXIT
echo "vm/fresh-clones: $clones clone(s) of $commit, $hogs host hog(s) during the vm step; logs in $work" >&2
passed=0
for n in $(seq 1 "$clones"); do
  dir="$work/$n"
  git clone -q "$repo" "$dir"
  started=$SECONDS
  if ! (cd "$dir" && scripts/install-deps.sh && swift build --build-tests) > "$work/$n-build.log" 2>&1; then
    echo "vm/fresh-clones: clone $n: the build failed: $(tail -1 "$work/$n-build.log")" >&2
    continue
  fi
  built=$((SECONDS - started))
  for _ in $(seq 1 "$hogs"); do
    (exec sh -c 'while :; do :; done') &
    hog_pids+=($!)
  done
  started=$SECONDS
  status=0
  (cd "$dir" && scripts/test.sh vm) > "$work/$n-vm.log" 2>&1 || status=$?
  stop_hogs
  boots=$(grep -c '^vm/run: booting' "$work/$n-vm.log" || true)
  summary="$(grep -E '^vm/run: (ok|fail)|guest up' "$work/$n-vm.log" | head -1)"
  if [ "$status" -eq 0 ] && [ "$boots" -eq 1 ]; then
    passed=$((passed + 1))
    echo "vm/fresh-clones: clone $n: passed on its first boot (build $built s, vm step $((SECONDS - started)) s; $summary)" >&2
  else
    echo "vm/fresh-clones: clone $n: FAILED (status $status, $boots boot(s), vm step $((SECONDS - started)) s; $summary; see $work/$n-vm.log)" >&2
  fi
  grep -E '^  (exits|floor|cache|run|restarts) figure' "$work/$n-vm.log" | sed "s/^/vm\/fresh-clones: clone $n: /" >&2 || true
  [ "$keep" = yes ] || rm -rf "$dir"
done
echo "vm/fresh-clones: $passed of $clones clone(s) passed the vm step on their first boot under $hogs host hog(s)" >&2
[ "$passed" -eq "$clones" ]
