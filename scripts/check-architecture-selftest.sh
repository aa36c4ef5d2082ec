#!/usr/bin/env bash
# Proves that scripts/check-architecture.sh can fail: in scratch copies of the tree it passes,
# then each case below puts back one thing the check exists to refuse (a second copy of a
# concept, or an allow-list entry left pointing at nothing), runs the check, and expects it to
# fail with that case's one-line message; the case is then undone before the next.
#
#   scripts/check-architecture-selftest.sh      prints each case and the check's line for it;
#                                               exits 1 if the check passed a case or the clean copy failed
set -uo pipefail
cd "$(dirname "$0")/.."
root=$PWD
scratch=$(mktemp -d /tmp/check-architecture-selftest-XXXXXX)
trap 'rm -rf "$scratch"' EXIT

# copy DIR: the files the check reads, into DIR.
copy() {
  mkdir -p "$1/scripts"
  cp -r "$root/Sources" "$root/Tests" "$root/Package.swift" "$1"/
  cp "$root/scripts/check-architecture.sh" "$1/scripts/"
}

# expect NAME EXPECTED FILE: FILE (already written) makes the check fail with a line holding
# EXPECTED; FILE is removed afterwards (or restored, if it was a file of the tree).
expect() {
  local name=$1 expected=$2 file=$3 output status
  output=$(bash scripts/check-architecture.sh 2>&1 > /dev/null)
  status=$?
  if [ -f "$file.orig" ]; then mv "$file.orig" "$file"; else rm -f "$file"; fi
  local line
  line=$(grep -F -- "$expected" <<< "$output" | head -1)
  if [ $status -ne 0 ] && [ -n "$line" ]; then
    echo "selftest: $name: fails as it must: $line"
  else
    echo "selftest: $name: NOT caught (status $status, no line with '$expected'):" >&2
    echo "$output" >&2
  fi
}

# inject NAME EXPECTED FILE: the Swift source on standard input becomes FILE, then expect.
inject() {
  local name=$1 expected=$2 file=$3
  mkdir -p "$(dirname "$file")"
  cat > "$file"
  expect "$name" "$expected" "$file"
}

# comment_out NAME EXPECTED FILE REGEX: the code lines of FILE matching REGEX become comments.
comment_out() {
  local name=$1 expected=$2 file=$3 regex=$4
  cp "$file" "$file.orig"
  perl -pi -e "s{^(?!\\s*//)(.*$regex)}{// \$1}" "$file"
  expect "$name" "$expected" "$file"
}

case_1() {
inject "a withTaskGroup race against a timer" "a task group racing work against a timer" Sources/Daemon/Injected/Race.swift << 'EOF'
func firstOfWakeOrTimer(_ clock: any Clock<Duration>, wake: @escaping @Sendable () async -> Void) async {
    await withTaskGroup(of: Void.self) { group in
        group.addTask { await wake() }
        group.addTask { try? await clock.sleep(for: .seconds(5)) }
        await group.next()
        group.cancelAll()
    }
}
EOF
}

case_2() {
inject "Task.sleep in the daemon" "Task.sleep (the daemon's modules sleep on their injected Clock" Sources/Daemon/Injected/Nap.swift << 'EOF'
func nap() async { try? await Task.sleep(for: .seconds(1)) }
EOF
}

case_3() {
inject "Date() as a deadline" "Date() (the wall clock is Clocks.WallClock" Sources/MQTTTesting/Injected/Deadline.swift << 'EOF'
import Foundation
func expired(since start: Date) -> Bool { Date() > start.addingTimeInterval(10) }
EOF
}

case_4() {
inject "a private extension Duration" "extension Duration (Clocks' units" Sources/Upload/Injected/Seconds.swift << 'EOF'
extension Duration {
    var seconds: Double { Double(components.seconds) }
}
EOF
}

case_5() {
inject "a Duration in milliseconds by hand" "a Duration counted by hand" Sources/MQTT/Injected/Milliseconds.swift << 'EOF'
func milliseconds(_ timeout: Duration) -> Int64 {
    timeout.components.seconds * 1000 + timeout.components.attoseconds / 1_000_000_000_000_000
}
EOF
}

case_6() {
inject "a loopback sockaddr_in built again" "a loopback sockaddr_in (TestSupport.LoopbackAddress)" Tests/MQTTTests/Injected/Probe.swift << 'EOF'
import Glibc
func loopback(_ port: UInt16) -> sockaddr_in {
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = in_port_t(port.bigEndian)
    return address
}
EOF
}

case_7() {
inject "a temporary directory from temporaryDirectory and a UUID" "a temporary directory named by hand" Sources/BlueZTesting/Injected/Scratch.swift << 'EOF'
import Foundation
func scratch() throws -> URL {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("ftms-bus-\(UUID().uuidString.prefix(8))")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    return directory
}
EOF
}

case_8() {
inject "a JSONEncoder configured again" "Foundation's JSONEncoder, configured once (ProcessOutput.ReportJSON)" Sources/Dashboard/Injected/Frame.swift << 'EOF'
import Foundation
func frame(_ value: some Encodable) throws -> Data {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    return try encoder.encode(value)
}
EOF
}

case_9() {
inject "host:port split by hand" "host:port split by hand (HostPort.HostPort)" Sources/DaemonConfig/Injected/Port.swift << 'EOF'
func port(_ authority: Substring) -> Int? {
    authority.lastIndex(of: ":").flatMap { Int(authority[authority.index(after: $0)...]) }
}
EOF
}

case_10() {
comment_out "an allow-list entry that matches only a comment" "stale allow-list entry Sources/Upload/Backend/RetryAfter.swift" \
  Sources/Upload/Backend/RetryAfter.swift '\bDateFormatter\('
}

case_11() {
cp Sources/Store/Identity/SHA256.swift Sources/Store/Identity/SHA256.swift.orig
rm Sources/Store/Identity/SHA256.swift
expect "an allow-list entry whose file is gone" "stale allow-list entry Sources/Store/Identity/SHA256.swift" Sources/Store/Identity/SHA256.swift
}

# The cases run in two lanes, each in its own copy of the tree (two cores, half the time).
cases=(case_1 case_2 case_3 case_4 case_5 case_6 case_7 case_8 case_9 case_10 case_11)
copy "$scratch/clean"
if ! (cd "$scratch/clean" && bash scripts/check-architecture.sh > /dev/null 2> clean.err); then
  echo "selftest: the check fails on the tree as it is:" >&2
  cat "$scratch/clean/clean.err" >&2
  exit 1
fi
for lane in 0 1; do
  (
    copy "$scratch/lane$lane"
    cd "$scratch/lane$lane" || exit 1
    for ((i = lane; i < ${#cases[@]}; i += 2)); do "${cases[$i]}" > "$scratch/case$i.out" 2>&1; done
  ) &
done
wait
for ((i = 0; i < ${#cases[@]}; i++)); do cat "$scratch/case$i.out"; done
failures=$(cat "$scratch"/case*.out | grep -c 'NOT caught')
if [ "$failures" -gt 0 ]; then
  echo "selftest: $failures case(s) the check let through" >&2
  exit 1
fi
echo "selftest: the check fails on every case it exists for"
