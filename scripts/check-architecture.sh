#!/usr/bin/env bash
# The table of docs/architecture.md, enforced: each cross-cutting concept has one home, and the
# module graph follows the data. A second copy of a concept fails here (and so in CI) instead of
# waiting for a review. Plain rules over the source text: code lines only (a line that starts
# with // is a comment and may name anything).
#
#   scripts/check-architecture.sh      prints each breach on one line; exits 1 if there is any
#
# A rule is one line below. To give a concept a new home, change its rule and the table in
# docs/architecture.md together.
set -uo pipefail
cd "$(dirname "$0")/.."
breaches=0

breach() {
  echo "check-architecture: $*" >&2
  breaches=$((breaches + 1))
}

# only CONCEPT REGEX SCOPE HOME...: Swift code under SCOPE (Sources, Tests or "Sources Tests")
# matching the Perl regex REGEX lives only in the files HOME (paths, or directories ending in /).
only() {
  local concept=$1 regex=$2 scope=$3
  shift 3
  local file home ok
  # shellcheck disable=SC2086
  while IFS= read -r file; do
    ok=no
    for home in "$@"; do
      case $home in
        */) [[ $file == "$home"* ]] && ok=yes ;;
        *) [ "$file" = "$home" ] && ok=yes ;;
      esac
    done
    [ $ok = yes ] || breach "$concept: $file (its home: $*)"
  done < <(grep -rlP --include='*.swift' "^(?!\s*//).*$regex" $scope 2>/dev/null | sort)
}

# never CONCEPT REGEX SCOPE: no Swift code under SCOPE matches REGEX.
never() {
  local concept=$1 regex=$2 scope=$3 hit
  # shellcheck disable=SC2086
  while IFS= read -r hit; do breach "$concept: $hit"; done < <(grep -rnP --include='*.swift' "^(?!\s*//).*$regex" $scope 2>/dev/null)
}

# Sockets: one sockaddr_un, one socket placement, one client.
only "sockaddr_un is made in one place" '\bsockaddr_un\(' "Sources Tests" \
  Sources/LocalSocket/UnixSocketAddress.swift \
  Tests/SystemdTests/Support/NotifyReceiver.swift # an independent receiver: the notifier's oracle
only "private directories come from mkdtemp(3) in their homes" '\bmkdtemp\(' "Sources Tests" \
  Sources/LocalSocket/SocketPlacement.swift Sources/Store/Recovery/ScratchCopy.swift \
  Sources/TestSupport/TemporaryDirectory.swift Tests/SystemdTests/Support/NotifyReceiver.swift

# The metrics socket: one async client (reconnecting with RetryTiming's backoff), one envelope
# reader beside its writer (Publish.Envelope.wire walks the keys for both).
only "an async client of a Unix socket (MetricsClient.MetricsSocketClient)" 'connect\(unixDomainSocketPath:' Sources \
  Sources/MetricsClient/MetricsSocketClient.swift
only "the envelope's keys, read or written (Publish.Envelope.wire)" '"sessionId"|\["seq"\]' Sources Sources/Publish/Envelope/Envelope.swift

# Processes: one spawner for tests, one for the product (doctor's bluetoothctl/btmgmt probes).
# Device1.Disconnect only after the link's acquired sockets are seen released (bluetoothd 5.66's
# use-after-free, docs/bluez.md "Giving acquired sockets back"); the simulator serves it.
only "Device1.Disconnect is sent after the exit order" 'member:\s*"Disconnect"' Sources Sources/BlueZ/Link/MachineLink.swift Sources/Simulator/
only "posix_spawn" '\bposix_spawn' "Sources Tests" Sources/TestSupport/Spawn.swift Sources/Doctor/Bus/ProgramOutput.swift
never "Foundation's Process (the spawner is TestSupport.spawnChild)" '\bProcess\(\)' "Sources Tests"

# Threads: a thread of its own only where a C library's loop or a blocking write needs one.
only "pthread_create" '\bpthread_create\(' "Sources Tests" \
  Sources/DBus/Connection/BusLoop.swift Sources/MQTT/Client/MQTTLoop.swift \
  Sources/ftms-bridge/IO/BlockWriter.swift Sources/ftms-bridge/IO/ParallelDecodeStream.swift \
  Sources/TestSupport/
only "a Foundation Thread (onOwnThread for awaited blocking work)" '\bThread\s*[({]' Sources \
  Sources/OwnThread/OnOwnThread.swift \
  Sources/TestSupport/ChildExit.swift Sources/ftms-backend/StdinLifeline.swift # threads nobody awaits: a reaper, a stdin lifeline
never "Dispatch queues (NIO's event loops, or onOwnThread)" '\b(DispatchQueue|Thread\.detachNewThread)\b' Sources

# Time: one place reads the kernel's clocks, one wall clock is injected, one race of an
# operation against its deadline, one host:port splitter, one loopback judgement.
only "clock_gettime (Clocks.SystemClocks)" '\bclock_gettime\(' "Sources Tests" Sources/Clocks/SystemClocks.swift
only "a task group racing an operation against a timer (Clocks.withTimeout)" '\bwithThrowingTaskGroup\b' Sources Sources/Clocks/
only "inet_pton (HostPort.ListenScope)" '\binet_pton\(' Sources Sources/HostPort/ListenScope.swift

# JSON: one writer, one reader, one value. Foundation's coders only where a library hands us
# Codable (Hummingbird's request and response coders, the control protocol's Codable answer);
# tests may use them freely as an independent oracle.
only "Foundation's JSONEncoder" '\bJSONEncoder\(' Sources \
  Sources/ReferenceBackend/Wire/JSONCoding.swift Sources/Control/Protocol/ControlResponse.swift \
  Sources/Daemon/Control/DaemonControl.swift Sources/Dashboard/Server/EventFrame.swift \
  Sources/ftms-bridge/Commands/ControlCommand.swift Sources/ftms-bridge/Commands/ScanCommand.swift
only "Foundation's JSONDecoder" '\bJSONDecoder\(' Sources \
  Sources/JSON/JSONReader.swift Sources/ReferenceBackend/Wire/JSONCoding.swift \
  Sources/Training/Parsing/TrainingPlan+Parsing.swift
never "JSONSerialization (JSON's reader and writer instead)" '\bJSONSerialization\b' Sources

# Errors, randomness, the store.
only "strerror (ProcessOutput.errnoText)" '(?<![_A-Za-z])strerror(_r)?\(' Sources Sources/ProcessOutput/ErrnoText.swift
only "SplitMix64's constants" '0x9E3779B97F4A7C15|0x9e3779b97f4a7c15' "Sources Tests" Sources/DeterministicRandom/
only "migrations" '\bregisterMigration\(' Sources Sources/Store/Database/StoreSchema.swift
only "CRC-32's polynomial (Store.CRC32)" '0xEDB8_?8320|0xedb8_?8320' Sources Sources/Store/Journal/CRC32.swift
only "a file replaced whole and durably (Store.DurableFile)" 'O_DIRECTORY' Sources/Store Sources/Store/Database/DurableFile.swift
only "SHA-256's constants (Store.SHA256)" '0x428a2f98|0x6a09e667' Sources Sources/Store/Identity/SHA256.swift
only "SQLite's record format read by hand (Store.PageScanner)" '\bbodyLength\(|serial type' Sources Sources/Store/Recovery/PageScanner.swift
only "ISO 8601 by Foundation (CivilTime's parser instead; tests use it as an oracle)" '\bISO8601DateFormatter\(' Sources
only "DateFormatter (the HTTP-date of Retry-After only)" '\bDateFormatter\(' Sources Sources/Upload/Backend/RetryAfter.swift

# Nothing from outside may trap the process.
never "fatalError" '\bfatalError\(' Sources
never "try!" '\btry!' Sources

# The pure core reads no clock and does no I/O.
never "a clock in the pure core (time comes in with each input)" '\b(Date\(\)|ContinuousClock\(\)|SuspendingClock\(\)|clock_gettime|\.now\(\))' "Sources/FTMS Sources/Workout"
never "I/O in the pure core" '\b(FileManager|FileHandle|fopen\(|fread\(|fwrite\(|Glibc\.\w+\(|socket\(|URLSession)' "Sources/FTMS Sources/Workout"
only "imports in the pure core (FoundationEssentials for value types; Glibc where the hex decoder scans bytes)" '^\s*(public |package |@preconcurrency )?import (?!(JSON|FTMS|CivilTime|FoundationEssentials)\b)' "Sources/FTMS Sources/Workout" \
  Sources/FTMS/Stream/HexLineDecoder.swift

# The module graph, read from Package.swift: the data flow, and the seams.
python3 - << 'EOF' || breaches=$((breaches + 1))
import re, sys

text = open("Package.swift", encoding="utf-8").read()

def dependencies(name):
    """The target `name`'s dependencies (local targets and products by name)."""
    found = re.search(r'\.(?:target|executableTarget|testTarget)\(\s*name:\s*"%s"' % re.escape(name), text)
    if not found:
        return None
    start = text.find("dependencies:", found.end())
    nxt = re.search(r'\.(?:target|executableTarget|testTarget|plugin)\(', text[found.end():])
    if start < 0 or (nxt and start > found.end() + nxt.start()):
        return set()
    i = text.index("[", start)
    depth, j = 0, i
    while True:
        depth += {"[": 1, "]": -1}.get(text[j], 0)
        if depth == 0:
            break
        j += 1
    body = text[i + 1:j]
    return set(re.findall(r'"([^"]+)"', re.sub(r'package:\s*"[^"]+"', "", body)))

rules = [
    # (target, allowed dependencies or None, forbidden dependencies, why)
    ("FTMS", {"JSON"}, set(), "the codec is pure"),
    ("Workout", {"FTMS", "JSON", "CivilTime"}, set(), "the engine is pure"),
    ("JSON", set(), set(), "the JSON value depends on nothing"),
    ("TestSupport", None, {"DBus", "CDBus", "BlueZTesting", "MQTT", "CMosquitto"}, "generic test helpers link no libdbus and no broker"),
    ("MQTTTesting", None, {"BlueZTesting", "DBus", "CDBus"}, "a private broker needs no libdbus"),
    ("Dashboard", None, {"Daemon", "BlueZ", "DBus"}, "the dashboard is a reader of the sockets and the broker"),
    ("ftms-bridged", None, {"Dashboard", "Doctor", "Simulator", "ReferenceBackend"}, "the daemon links nothing it does not run"),
    ("ftms-bridge", None, {"Daemon"}, "the operator's commands publish through Publish's LivePublisher, not the daemon"),
    ("Publish", None, {"MQTT", "CMosquitto", "Daemon"}, "the broker reaches LivePublisher through Publish's EnvelopeForwarder"),
    ("MetricsClient", None, {"Daemon", "BlueZ", "DBus", "CDBus", "MQTT", "CMosquitto"}, "integrators link the metrics socket's client without the daemon"),
]
failed = False
for target, allowed, forbidden, why in rules:
    deps = dependencies(target)
    if deps is None:
        print(f"check-architecture: module graph: no target {target} in Package.swift", file=sys.stderr)
        failed = True
        continue
    extra = (deps - allowed) if allowed is not None else (deps & forbidden)
    if extra:
        print(f"check-architecture: module graph: {target} depends on {', '.join(sorted(extra))} ({why})", file=sys.stderr)
        failed = True
sys.exit(1 if failed else 0)
EOF

if [ "$breaches" -gt 0 ]; then
  echo "check-architecture: $breaches breach(es) of docs/architecture.md" >&2
  exit 1
fi
echo "check-architecture: every concept in its one home; the module graph follows the data"
