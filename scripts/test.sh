#!/usr/bin/env bash
# README command two, and what CI runs: installs what is missing, builds, then every test.
#
#   scripts/test.sh             every step
#   scripts/test.sh STEP...     only these steps (after the build, which always runs)
#
# The steps, in order (the table at the bottom of this file; a new step is one line there):
#   build          swift build --build-tests
#   architecture   scripts/check-architecture.sh: each concept in its one home, the module graph
#                  as the data flow (docs/architecture.md)
#   architecture-selftest  the check fails on each concept put back a second time (a scratch copy)
#   swift-pure     swift test of the pure modules (FTMS, Workout, JSON, Capture): golden
#                  vectors, real frames, property tests, a million notifications; computation
#                  only, seconds of it on each of the cooperative pool's threads
#   swift-core     swift test, every other suite but the two groups below: the store, the
#                  upload client and the reference backend, D-Bus and BlueZ against real
#                  dbus-daemons, the simulator, MQTT, and the CLI as real processes
#   swift-daemon   swift test --filter DoctorTests|SystemdTests|TrainingTests|DaemonConfigTests
#   swift-sockets  swift test --filter ControlTests|TelemetryTests|DaemonTests|DashboardTests
#                  (four groups one after the other: on a 2-core machine the pool has two
#                  threads, and a test computing for seconds on one, or every suite at once,
#                  starves the suites whose peers are real processes, sockets and timers; each
#                  group still runs its own tests in parallel)
#   parity         random frames from an independent generator written from the FTMS 1.0
#                  tables (scripts/gen_frames.py) against `ftms-bridge decode`
#   fuzz           libFuzzer over every decoder from the seed corpus, bounded (FUZZ_RUNS)
#   fake-bluez     the fake BlueZ (python-dbusmock's bluez5 template plus FTMS GATT,
#                  Tests/Fixtures/dbusmock) checks itself on a private dbus-daemon
#   soak           8 machines kept connected through link drops and commands (SOAK_SECONDS,
#                  default 30; scripts/soak.sh runs it for longer), failing on growth in memory,
#                  descriptors or calls
#   systemd        scripts/check-systemd.sh stages an install, and holds the unit to a silent
#                  `systemd-analyze verify` and an offline `systemd-analyze security` exposure
#                  of at most 1.5
#   e2e            scripts/e2e.py: `ftms-bridge run` with ftms-sim and ftms-backend as real
#                  processes: two machines, a control command, SIGKILL and restart, sessions
#                  uploaded once, the metrics socket and sd_notify
#   store-full     scripts/store-full.py: the state directory on a 16 MiB tmpfs (a mount
#                  namespace of its own) filled mid-ride and freed without a restart: every ride
#                  at the backend once with its distance; status says the store cannot write
#   store-live     scripts/store-live.py: the state directory read-only from the start (store in
#                  memory, rides uploaded from it, written once remounted read-write) and a page
#                  garbled under the running daemon (noticed, moved aside, no restart): 0 lost
#   clock-steps    scripts/clock-steps.py: a gateway without a real-time clock; libfaketime
#                  starts the daemon's wall clock at 2000-01-01 and steps it mid-ride, then
#                  steps and SIGKILLs: sessions dated truly, one per ride
#   mqtt-fleet     scripts/mqtt-fleet.py: three gateways, each with its own bus and ftms-sim,
#                  and one mosquitto: every machine on one subscriber, sessions at the backend
#                  once, last will
#   floor          scripts/floor-deaths.py: two gateways in one simulated air with one bike and a
#                  mosquitto (docs/fleet.md): the home dies mid-ride (adapter off, SIGKILL) and hands
#                  over on purpose; the neighbour carries the same session on, one session per ride
#                  at the backend with the bike's whole distance, the returning home uploads nothing;
#                  a death only the lease finds (broker crashed: no will), the home cut off from
#                  the broker (closed, blackholed) keeping its link and ride; no session ended
#                  twice on MQTT `session`
#   dashboard      the dashboard in headless chromium (scripts/dashboard-browser.py) against
#                  the simulated gym: tiles, live values, a reload complete at once, a dropped
#                  machine; screenshots in .build/dashboard-screens
#   vm             real bluetoothd 5.66 in a qemu guest (scripts/vm/test.sh): scan, control,
#                  cold monitors and daemon stops leaving bluetoothd whole, bluetoothd restarted
#                  under the daemon, the daemon restarted and riding through interruptions;
#                  started after the Swift groups and run beside parity … deb (its output
#                  shown after deb): the guest mostly waits, and so do those steps
#   deb            the Debian package (scripts/deb-test.sh --debug): packaged from the debug
#                  build's executables with the Swift runtime once in /usr/lib/ftms-bridge, as
#                  the release package has it; installed into a clean Debian 12 root with no
#                  Swift toolchain booted under systemd-nspawn, upgraded mid-ride, removed, purged
#
# No test may touch the host's default paths (a test that asked the daemon at the default
# control socket would drive the gym's real machines): the Swift groups, and the steps that
# run the daemon and the CLI (soak, e2e, store-full, store-live, clock-steps, mqtt-fleet,
# floor, dashboard), run where those paths hold decoys (scripts/lib/host-decoys.sh: a private mount namespace; needs
# root), and a step fails if anything connected to one. Without root the steps run unguarded,
# said loudly and named in the summary. A hang is caught by one generous timeout per group
# (SWIFT_GROUP_TIMEOUT seconds, default 2700); no test bounds its own elapsed time.
#
# Every step runs even after another failed (a step that needs the build is skipped when the
# build failed). Each step's output is kept in .build/test-logs/STEP.log; a Swift group's
# failures are printed here. The last line is the summary: tests and steps passed and failed,
# and every step that failed or was skipped, by name.
set -uo pipefail
cd "$(dirname "$0")/.."
logs=.build/test-logs
mkdir -p "$logs"
wanted=("$@")

tests_passed=0
tests_failed=0
tests_known=0
passed_steps=()
failed_steps=()
skipped_steps=()
timings=()
built=unknown
decoys=unknown

# Whether STEP was asked for (every step when none was named).
asked() {
  [ ${#wanted[@]} -eq 0 ] && return 0
  local name
  for name in "${wanted[@]}"; do [ "$name" = "$1" ] && return 0; done
  return 1
}

# step NAME COMMAND...: runs one step, its output shown and kept in $logs/NAME.log.
step() {
  local name=$1
  shift
  [ "$name" = build ] || asked "$name" || { skipped_steps+=("$name (not asked for)"); return 0; }
  [ "$built" != no ] || { skipped_steps+=("$name (the build failed)"); return 0; }
  echo "test: $name" >&2
  local started=$SECONDS status=0
  current=$name "$@" 2>&1 | tee "$logs/$name.log" || status=${PIPESTATUS[0]}
  counted "$name" "$status" "$((SECONDS - started)) s"
}

# counted NAME STATUS TIME: a step's time, and its pass or failure (said, with its log); returns STATUS.
counted() {
  timings+=("$1 $3")
  if [ "$2" -eq 0 ]; then
    passed_steps+=("$1")
  else
    echo "test: $1 failed (status $2; log: $logs/$1.log)" >&2
    failed_steps+=("$1")
  fi
  return "$2"
}

# step_beside NAME COMMAND...: starts a step that mostly waits (a guest's timers and scan windows)
# in the background, its output kept in $logs/NAME.log only; join_beside NAME waits for it, shows
# that log, and counts the step as `step` does. What runs meanwhile shares the box with it: a
# loaded host is a case both must hold under anyway.
declare -A beside_pid beside_started
step_beside() {
  local name=$1
  shift
  asked "$name" || { skipped_steps+=("$name (not asked for)"); return 0; }
  [ "$built" != no ] || { skipped_steps+=("$name (the build failed)"); return 0; }
  echo "test: $name: started beside the steps that follow (its output at the end; log: $logs/$name.log)" >&2
  beside_started[$name]=$SECONDS
  current=$name "$@" > "$logs/$name.log" 2>&1 &
  beside_pid[$name]=$!
}

join_beside() {
  local name=$1 status=0
  [ -n "${beside_pid[$name]:-}" ] || return 0
  echo "test: $name (ran beside the steps above)" >&2
  wait "${beside_pid[$name]}" || status=$?
  cat "$logs/$name.log" >&2
  counted "$name" "$status" "$((SECONDS - beside_started[$name])) s beside" || true
}

# swift_group NAME SWIFT-TEST-ARGUMENTS...: one group of the tests `swift build --build-tests`
# built, among the decoys when this box can make them, under the group timeout. The test
# binary is run as `swift test --skip-build` runs it (same arguments, NO_COLOR), but
# directly: swift test keeps the runner in a process group of its own, out of the timeout's
# reach, and passes on its output only when it ends, so a hung group would say nothing. (swift
# test's XCTest pass is left out: no test here uses XCTest.) Counts the tests from the output
# (swift-testing's line per test), so a failing group says how many of its tests failed, and
# a group killed at its timeout names the tests that never finished.
swift_group() {
  local name=$1
  shift
  asked "$name" || { skipped_steps+=("$name (not asked for)"); return 0; }
  [ "$built" != no ] || { skipped_steps+=("$name (the build failed)"); return 0; }
  local log="$logs/$name.log" limit=${SWIFT_GROUP_TIMEOUT:-2700} started=$SECONDS status=0
  local runner
  runner="$(swift build --show-bin-path)/ftms-bridgePackageTests.xctest"
  echo "test: $name: swift test --skip-build $*" >&2
  current=$name guarded timeout --kill-after=30 "$limit" env NO_COLOR=1 "$runner" --testing-library swift-testing "$@" > "$log" 2>&1 \
    || status=$?
  timings+=("$name $((SECONDS - started)) s")
  # swift-testing prints one line per finished test: ✔ passed, ━ passed with a known issue,
  # ✘ failed (issues follow as "✘ Test … recorded an issue"); "Test run with" is the total.
  local ok bad known total unfinished
  # (Not anchored: a parameterised test's argument may print without its newline, and the
  # next test's line then follows it on the same line.)
  ok=$(grep -oE '[✔━] Test .* passed after' "$log" | grep -vc '^. Test run with')
  known=$(grep -oE '━ Test .* passed after' "$log" | grep -vc '^. Test run with')
  bad=$(grep -oE '✘ Test .* failed after' "$log" | grep -vc '^. Test run with')
  total=$(grep -oE 'Test run with [0-9]+ test' "$log" | grep -oE '[0-9]+' | tail -n 1)
  unfinished=$(unfinished_tests "$log")
  # A test that never finished (its group killed at the timeout, or crashed) failed.
  [ -z "$unfinished" ] || bad=$((bad + $(echo "$unfinished" | wc -l)))
  unfinished=$(echo "$unfinished" | awk 'NR > 1 { printf ", " } { printf "%s", $0 }')
  tests_passed=$((tests_passed + ok))
  tests_failed=$((tests_failed + bad))
  tests_known=$((tests_known + known))
  if [ "$status" -eq 0 ] && [ "$ok" -gt 0 ] && [ "$bad" -eq 0 ]; then
    echo "test: $name: $ok tests passed$([ "$known" -eq 0 ] || echo ", $known with a known issue") ($((SECONDS - started)) s)" >&2
    passed_steps+=("$name")
    return
  fi
  # Each failed test and its issues (with their "↳" details), a crash, the decoys' log.
  awk '/^✘ Test / && !/^✘ Test run with/ { show = 1; print; next }
       /^↳/ && show { print; next }
       { show = 0 }
       /Fatal error|💣|^error: |^host-decoys:|^  [0-9:]+ (control|metrics)\.sock/ { print }' "$log" | head -n 150 >&2
  local why="status $status"
  [ "$status" -ne 124 ] && [ "$status" -ne 137 ] || why="killed at its ${limit} s timeout"
  [ "$status" -ne 3 ] || why="a test connected to a decoy at the host's default paths"
  [ "$status" -ne 4 ] || why="the decoys could not be made"
  [ -z "$unfinished" ] || { echo "test: $name: never finished: $unfinished" >&2; why="$why; never finished: $unfinished"; }
  [ "$ok" -gt 0 ] || [ "$bad" -gt 0 ] || why="$why; no test ran"
  echo "test: $name failed: $ok passed, $bad failed of ${total:-?} tests ($why; log: $log)" >&2
  failed_steps+=("$name ($bad of ${total:-?} tests failed; $why)")
}

# guarded COMMAND...: COMMAND where the host's default paths hold decoys, when this box can
# make them (scripts/lib/host-decoys.sh); said loudly, once, and named in the summary when not.
guarded() {
  if [ "$decoys" = yes ]; then
    scripts/lib/host-decoys.sh "$logs/${current:-step}.decoys.log" "$@"
  else
    "$@"
  fi
}

# The tests a killed or crashed group started and never finished, by name.
unfinished_tests() {
  python3 - "$1" << 'EOF'
import collections, re, sys
started, finished = collections.Counter(), collections.Counter()
for line in open(sys.argv[1], encoding="utf-8", errors="replace"):
    line = line.rstrip("\n")
    if m := re.match(r"^◇ Test (?!case |run )(.+) started\.$", line):
        started[m.group(1)] += 1
    # Searched, not matched at the start: a test's line can follow an argument printed
    # without its newline.
    for m in re.finditer(r"[✔━✘] Test (.+?)(?: with \d+ test cases?)? (?:passed|failed) after ", line):
        if not m.group(1).startswith("run with"):
            finished[m.group(1)] += 1
    for m in re.finditer(r"➜ Test (.+?) skipped", line):
        finished[m.group(1)] += 1
print("\n".join(sorted((started - finished).elements())))
EOF
}

build() {
  scripts/install-deps.sh && swift build --build-tests
}

# btvirt is not deterministic (a scan it answers once, links it does not report dropped): one
# failed boot gets one fresh boot before the step fails; both runs' summaries are printed.
vm() {
  bash scripts/vm/test.sh || { echo "vm/test: failed once; again in a fresh guest" >&2; bash scripts/vm/test.sh; }
}

pure_suites='^(FTMSTests|WorkoutTests|JSONTests|CaptureTests)\.'
daemon_suites='DoctorTests|SystemdTests|TrainingTests|DaemonConfigTests'
socket_suites='ControlTests|TelemetryTests|DaemonTests|DashboardTests'

# The steps, in order. `step NAME COMMAND...` runs a command (a shell function above too),
# `step NAME guarded COMMAND...` runs a program among the decoys, and `swift_group NAME
# ARGUMENTS...` is a swift test group (always among the decoys).
step build build || built=no
step architecture scripts/check-architecture.sh
step architecture-selftest scripts/check-architecture-selftest.sh
if scripts/lib/host-decoys.sh --check; then
  decoys=yes
else
  decoys=no
  echo "test: NO DECOYS: no private mount namespace here (see above): the Swift groups and the daemon's steps run without proof that they leave the host's default paths alone" >&2
  skipped_steps+=("decoys (no private mount namespace: the tests ran unguarded)")
fi
swift_group swift-pure --filter "$pure_suites"
swift_group swift-core --skip "$pure_suites" --skip "$daemon_suites" --skip "$socket_suites"
swift_group swift-daemon --filter "$daemon_suites"
swift_group swift-sockets --filter "$socket_suites"
# The guest spends its 10 minutes mostly waiting, and the steps below mostly wait on their peers'
# timers: side by side they take about as long as the guest alone. Not beside the Swift groups,
# whose two cooperative threads a busy qemu would starve.
step_beside vm vm
step parity python3 scripts/parity.py --bin .build/debug/ftms-bridge --count "${PARITY_FRAMES:-20000}" --no-pyftms
step fuzz scripts/fuzz.sh --runs "${FUZZ_RUNS:-1000000}" --seconds 300
step fake-bluez scripts/fake-bluez.sh selftest
step soak guarded .build/debug/ftms-soak --seconds "${SOAK_SECONDS:-30}"
step systemd scripts/check-systemd.sh
step e2e guarded python3 scripts/e2e.py --bin .build/debug
step store-full guarded python3 scripts/store-full.py --bin .build/debug
step store-live guarded python3 scripts/store-live.py --bin .build/debug
step clock-steps guarded python3 scripts/clock-steps.py --bin .build/debug
step mqtt-fleet guarded python3 scripts/mqtt-fleet.py --bin .build/debug
step floor guarded python3 scripts/floor-deaths.py --bin .build/debug --deaths "${FLOOR_DEATHS:-2}" --handovers "${FLOOR_HANDOVERS:-1}" \
    --lease-deaths "${FLOOR_LEASE_DEATHS:-1}" --cuts "${FLOOR_CUTS:-2}" --cut-hold "${FLOOR_CUT_HOLD:-20}"
step dashboard guarded python3 scripts/dashboard-browser.py --bin .build/debug --out .build/dashboard-screens
step deb scripts/deb-test.sh --debug
join_beside vm

echo "test: time per step: $(IFS=,; echo "${timings[*]}" | sed 's/,/, /g'); $SECONDS s in all" >&2
[ ${#failed_steps[@]} -eq 0 ] || printf 'test: FAILED: %s\n' "${failed_steps[@]}" >&2
[ ${#skipped_steps[@]} -eq 0 ] || printf 'test: skipped: %s\n' "${skipped_steps[@]}" >&2
join() { local item separator=""; for item; do printf '%s%s' "$separator" "$item"; separator="; "; done; }
other_passed=0
for name in "${passed_steps[@]}"; do case $name in swift-*) ;; *) other_passed=$((other_passed + 1)) ;; esac; done
other_failed=0
for name in "${failed_steps[@]}"; do case $name in swift-*) ;; *) other_failed=$((other_failed + 1)) ;; esac; done
line="summary: $((tests_passed + other_passed)) passed, $((tests_failed + other_failed)) failed"
line+=" (swift tests: $tests_passed of $((tests_passed + tests_failed)) passed"
[ "$tests_known" -eq 0 ] || line+=", $tests_known with a known issue"
line+="; other steps: $other_passed of $((other_passed + other_failed)) passed)"
[ ${#failed_steps[@]} -eq 0 ] || line+="; failed: $(join "${failed_steps[@]}")"
[ ${#skipped_steps[@]} -eq 0 ] || line+="; skipped: $(join "${skipped_steps[@]}")"
echo "$line"
[ ${#failed_steps[@]} -eq 0 ]
