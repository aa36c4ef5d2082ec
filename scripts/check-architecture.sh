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
outputs=$(mktemp -d /tmp/check-architecture-XXXXXX)
trap 'rm -rf "$outputs"' EXIT
rules=0

breach() {
  echo "check-architecture: $*" >&2
  breaches=$((breaches + 1))
}

# in_background RULE ARGS...: runs one rule beside the others (the rules only read, and two
# cores check in about half the time); what it finds is printed in the rules' order at the end.
in_background() {
  rules=$((rules + 1))
  "$@" 2> "$outputs/$(printf %04d "$rules")" &
}

# only CONCEPT REGEX SCOPE HOME...: Swift code under SCOPE (Sources, Tests or "Sources Tests")
# matching the Perl regex REGEX lives only in the files HOME (paths, or directories ending in /).
# A HOME that no code matches (gone, renamed, or only a comment names the concept) is stale and
# fails too: the allow-list says where the concept is, not where it once was.
only() { in_background only_now "$@"; }
only_now() {
  local concept=$1 regex=$2 scope=$3
  shift 3
  local file home ok
  local -a found=()
  # shellcheck disable=SC2086
  mapfile -t found < <(grep -rlP --include='*.swift' "^(?!\s*//).*$regex" $scope 2>/dev/null | sort)
  for file in "${found[@]}"; do
    ok=no
    for home in "$@"; do under "$file" "$home" && ok=yes; done
    [ $ok = yes ] || breach "$concept: $file (its home: $*)"
  done
  for home in "$@"; do
    ok=no
    for file in "${found[@]}"; do under "$file" "$home" && ok=yes; done
    [ $ok = yes ] || breach "$concept: stale allow-list entry $home (no code there matches; remove it)"
  done
}

# under FILE HOME: FILE is HOME (a path), or lies in it (a directory ending in /).
under() {
  case $2 in
    */) [[ $1 == "$2"* ]] ;;
    *) [ "$1" = "$2" ] ;;
  esac
}

# never CONCEPT REGEX SCOPE: no Swift code under SCOPE matches REGEX.
never() { in_background never_now "$@"; }
never_now() {
  local concept=$1 regex=$2 scope=$3 hit
  # shellcheck disable=SC2086
  while IFS= read -r hit; do breach "$concept: $hit"; done < <(grep -rnP --include='*.swift' "^(?!\s*//).*$regex" $scope 2>/dev/null)
}

# raced CONCEPT SCOPE HOME: no task group under SCOPE but in the directory HOME (any of the four
# kinds of task group) has a child that sleeps: a task group ending at the first of some work and
# a timer is HOME's race, written again.
raced() { in_background raced_now "$@"; }
raced_now() {
  local concept=$1 scope=$2 home=$3 hit
  # shellcheck disable=SC2086
  while IFS= read -r hit; do breach "$concept: $hit"; done < <(
    grep -rlP --include='*.swift' '\bwith(Throwing)?(Discarding)?TaskGroup\b' $scope 2>/dev/null | grep -v "^$home" | sort | xargs -r perl -0777 -ne '
      s{^(\s*//.*)$}{" " x length($1)}mge;
      while (/\bwith(?:Throwing)?(?:Discarding)?TaskGroup\b[^{]*(\{(?:[^{}]++|(?1))*\})/g) {
        my ($at, $body) = ($-[0], $1);
        next unless $body =~ /\.sleep\s*\(/;
        printf "%s:%d: a child sleeps\n", $ARGV, 1 + (substr($_, 0, $at) =~ tr/\n//);
      }')
}

# Sockets: one sockaddr_un, one socket placement, one client.
only "sockaddr_un is made in one place" '\bsockaddr_un\(' "Sources Tests" \
  Sources/LocalSocket/UnixSocketAddress.swift \
  Tests/SystemdTests/Support/NotifyReceiver.swift # an independent receiver: the notifier's oracle
only "a loopback sockaddr_in (TestSupport.LoopbackAddress)" '\bsockaddr_in\(' "Sources Tests" Sources/TestSupport/LoopbackAddress.swift
never "a temporary directory named by hand (TestSupport.TemporaryDirectory: mkdtemp)" '\btemporaryDirectory\b|NSTemporaryDirectory\(' "Sources Tests"
only "a Unix stream socket opened by hand (LocalSocket.UnixStream)" '\bsocket\(AF_UNIX,\s*Int32\(SOCK_STREAM' Sources \
  Sources/LocalSocket/UnixStream.swift Sources/BlueZTesting/PrivateBus.swift # the listening socket a private dbus-daemon is handed
only "a byte-to-message decoder (LocalSocket.LineFramer)" 'ByteToMessageDecoder\b' Sources Sources/LocalSocket/LineFramer.swift
only "nobody listening, judged from ECONNREFUSED (LocalSocket.SocketProbe)" '\bECONNREFUSED\b' Sources \
  Sources/LocalSocket/SocketProbe.swift Sources/LocalSocket/UnixStreamError.swift \
  Sources/Doctor/Bluetooth/Errno.swift # errno's names for the doctor's report, no judgement
only "private directories come from mkdtemp(3) in their homes" '\bmkdtemp\b' "Sources Tests" \
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
only "Device1.Disconnect is sent after the exit order" 'member:\s*"Disconnect"' Sources Sources/BlueZ/Link/MachineLink.swift
only "posix_spawn" '\bposix_spawn' "Sources Tests" Sources/TestSupport/Spawn.swift Sources/Doctor/Bus/ProgramOutput.swift
never "Foundation's Process (the spawner is TestSupport.spawnChild)" '\bProcess\(\)' "Sources Tests"

# Threads: a thread of its own only where a C library's loop or a blocking write needs one.
only "pthread_create" '\bpthread_create\(' "Sources Tests" \
  Sources/DBus/Connection/BusLoop.swift Sources/MQTT/Client/MQTTLoop.swift \
  Sources/ftms-bridge/IO/BlockWriter.swift Sources/ftms-bridge/IO/ParallelDecodeStream.swift
only "a Foundation Thread (onOwnThread for awaited blocking work)" '\bThread\s*[({]' Sources \
  Sources/OwnThread/OnOwnThread.swift \
  Sources/TestSupport/ChildExit.swift Sources/ftms-backend/StdinLifeline.swift # threads nobody awaits: a reaper, a stdin lifeline
never "Dispatch queues (NIO's event loops, or onOwnThread)" '\b(DispatchQueue|Thread\.detachNewThread)\b' Sources

# Time: one place reads the kernel's clocks, one wall clock is injected, one race of an
# operation against its deadline, one host:port splitter, one loopback judgement.
only "clock_gettime (Clocks.SystemClocks)" '\bclock_gettime\(' "Sources Tests" Sources/Clocks/SystemClocks.swift
raced "a task group racing work against a timer (Clocks.withTimeout, Clocks.firstOf)" Sources Sources/Clocks/
only "Task.sleep (the daemon's modules sleep on their injected Clock: EventLoopClock, a test's ManualClock)" '\bTask\.sleep\b' Sources \
  Sources/TestSupport/ Sources/BlueZTesting/ Sources/MQTTTesting/ Sources/Simulator/ Sources/ReferenceBackend/ \
  Sources/ftms-bridge/ Sources/ftms-soak/ Sources/Dashboard/ # test doubles, the simulator and the operator's processes
never "Date() (the wall clock is Clocks.WallClock; a deadline is on a Swift Clock)" '(?<!new )\bDate\(\)|\bDate\.now\b(?!\()|\bDate\(timeIntervalSinceNow' Sources
only "extension Duration (Clocks' units: milliseconds, microseconds, nanoseconds, seconds)" '\bextension\s+Duration\b' Sources Sources/Clocks/Duration+Units.swift
only "a Duration counted by hand (Clocks' Duration units)" '\battoseconds\b|components\.seconds\s*&?\*' Sources Sources/Clocks/ \
  Sources/CivilTime/ Sources/Capture/Model/DecimalSeconds.swift Sources/Workout/Time/Nanoseconds.swift # exact arithmetic below Clocks, and the pure core
only "inet_pton (HostPort.ListenScope)" '\binet_pton\(' Sources Sources/HostPort/ListenScope.swift
only "host:port split by hand (HostPort.HostPort)" '\b(first|last)Index\(of: "\]"\)|\blastIndex\(of: ":"\)' Sources Sources/HostPort/HostPort.swift
only "a Swift Clock of our own (EventLoopClock for the daemon's timers, TestSupport.ManualClock)" '\b(struct|class|actor)\s+\w+\s*:[^{]*\bClock\b' "Sources Tests" \
  Sources/Daemon/Clock/EventLoopClock.swift Sources/TestSupport/ManualClock.swift
only "timedated's NTPSynchronized (Daemon.TimedatedSync)" '"NTPSynchronized"' Sources Sources/Daemon/Clock/TimedatedSync.swift
never "a delay doubled by hand (RetryTiming.Backoff)" '(?i)\b\w*(backoff|delay)\w*\s*\*\s*2\b' Sources

# JSON: one writer, one reader, one value. Foundation's coders only where a library hands us
# Codable (Hummingbird's request and response coders, the control protocol's Codable answer),
# the encoder made and configured in one place; tests may use them freely as an independent oracle.
only "Foundation's JSONEncoder, configured once (ProcessOutput.ReportJSON)" '\bJSONEncoder\(|\.outputFormatting\b' Sources Sources/ProcessOutput/ReportJSON.swift \
  Sources/Floor/Wire/SnapshotJSON.swift # the pure floor links no ProcessOutput: a snapshot's Codable bytes, unformatted
only "Foundation's JSONDecoder" '\bJSONDecoder\(' Sources \
  Sources/ReferenceBackend/Wire/JSONCoding.swift \
  Sources/Training/Parsing/TrainingPlan+Parsing.swift \
  Sources/Floor/Wire/SnapshotJSON.swift # a mirrored checkpoint's SessionSnapshot, Codable as the store keeps it
never "JSONSerialization (JSON's reader and writer instead)" '\bJSONSerialization\b' Sources

# Errors, randomness, the store.
only "strerror (ProcessOutput.errnoText)" '(?<![_A-Za-z])strerror(_r)?\(' Sources Sources/ProcessOutput/ErrnoText.swift
only "SplitMix64's constants" '(?i:0x9e37_?79b9_?7f4a_?7c15)' "Sources Tests" Sources/DeterministicRandom/
only "a finished session is queued by its one owner (Store.FinishedSessionKeeper)" '\b\w*(?i:store)\.enqueue\(' Sources \
  Sources/Store/Keeper/FinishedSessionKeeper.swift
only "a session handed over to another gateway, through the one owner of finished sessions (Store.FinishedSessionKeeper)" '\b\w*(?i:store)\.handOver\(' Sources \
  Sources/Store/Keeper/FinishedSessionKeeper.swift
only "a checkpointed session moved onto this clock (Workout.SessionEngine.resuming: a restart, another gateway's session adopted)" '\bsession\.shifted\(by:' Sources \
  Sources/Workout/Checkpoint/SessionEngine+Checkpoint.swift
only "migrations" '\bregisterMigration\(' Sources Sources/Store/Database/StoreSchema.swift
only "a GRDB record (Store's Codable records, one per table)" '\b(FetchableRecord|PersistableRecord|TableRecord)\b' Sources Sources/Store/
only "a GRDB connection opened (Store.StoreBacking; the store's open and the damaged file's reader)" '\bDatabase(Queue|Pool)\s*\(' Sources \
  Sources/Store/Backing/ Sources/Store/Database/GatewayStore.swift Sources/Store/Recovery/DamagedStoreReader.swift
only "the session journal's file and frames (Store.SessionJournal)" '"ftms-bridge\.journal"|"FTJ1"' Sources Sources/Store/Journal/SessionJournal.swift
only "the device id's files (Store.DeviceIdentityFile, Store.MachineAppID)" '"device-id"|"/etc/machine-id"' Sources \
  Sources/Store/Identity/DeviceIdentityFile.swift Sources/Store/Identity/MachineAppID.swift
only "CRC-32's polynomial (Store.CRC32)" '(?i:0xedb8_?8320)' Sources Sources/Store/Journal/CRC32.swift
only "a file replaced whole and durably (Store.DurableFile)" 'O_DIRECTORY' Sources/Store Sources/Store/Database/DurableFile.swift
only "SHA-256's constants (Store.SHA256)" '(?i:0x428a_?2f98|0x6a09_?e667)' Sources Sources/Store/Identity/SHA256.swift
only "SQLite's record format read by hand (Store.PageScanner)" '\bbodyLength\(|serial type' Sources Sources/Store/Recovery/PageScanner.swift
only "ISO 8601 by Foundation (CivilTime's parser instead; tests use it as an oracle)" '\bISO8601DateFormatter\(' Sources
only "DateFormatter (the HTTP-date of Retry-After only)" '\bDateFormatter\(' Sources Sources/Upload/Backend/RetryAfter.swift

# Nothing from outside may trap the process.
never "fatalError" '\bfatalError\(' Sources
never "try!" '\btry!' Sources

# The pure core reads no clock and does no I/O.
never "a clock in the pure core (time comes in with each input)" '\b(Date\(\)|ContinuousClock\(\)|SuspendingClock\(\)|clock_gettime|\.now\(\))' "Sources/FTMS Sources/Workout Sources/Floor"
never "I/O in the pure core" '\b(FileManager|FileHandle|fopen\(|fread\(|fwrite\(|Glibc\.\w+\(|socket\(|URLSession)' "Sources/FTMS Sources/Workout Sources/Floor"
only "imports in the pure core (FoundationEssentials for value types; Glibc where the hex decoder scans bytes)" '^\s*(public |package |@preconcurrency )?import (?!(JSON|FTMS|CivilTime|FoundationEssentials)\b)' "Sources/FTMS Sources/Workout" \
  Sources/FTMS/Stream/HexLineDecoder.swift
only "imports in the floor (pure: the session snapshot it mirrors, JSON, FoundationEssentials for Codable)" '^\s*(public |package |internal |@preconcurrency )?import (?!(JSON|Workout|FoundationEssentials)\b)' Sources/Floor

wait
for file in "$outputs"/*; do
  [ -s "$file" ] || continue
  cat "$file" >&2
  breaches=$((breaches + $(wc -l < "$file")))
done

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
    ("Floor", {"Workout", "JSON"}, set(), "the floor's placement is pure"),
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

# Paths: the gateway's default paths and systemd's directory variables are written, and the one
# order (flag, config file, $STATE_DIRECTORY/$RUNTIME_DIRECTORY, default) applied, in one place
# that the daemon, every ftms-bridge command and the doctor share (DaemonConfig.GatewayPaths).
only "the gateway's paths: defaults and systemd's directories (DaemonConfig.GatewayPaths)" \
  '(?:"(STATE|RUNTIME|CONFIGURATION)_DIRECTORY"|/var/lib/ftms-bridge|/run/ftms-bridge|/etc/ftms-bridge/config\.toml)' Sources \
  Sources/DaemonConfig/Paths/GatewayPaths.swift

# Names: a top-level type name in Sources means one thing, whatever its module (a typealias that
# re-exports one type under its own name, `typealias UTCTime = CivilTime.UTCTime`, is that thing).
type_declaration='^(?:@\w+(?:\([^)]*\))?\s+)*(?:(?:public|package|internal|private|fileprivate|final|indirect|nonisolated)\s+)*(?:(?:struct|enum|actor|class|protocol)\s+\K[A-Z]\w*|typealias\s+\K([A-Z]\w*)\b(?!\s*=\s*\w+\.\1\b))'
while IFS= read -r name; do
  breach "a type name means one thing: $name is declared in $(grep -rlP --include='*.swift' "^(?![\\s/])(?:.*\\s)?(?:struct|enum|actor|class|protocol|typealias)\\s+$name\\b" Sources | tr '\n' ' ')"
done < <(grep -rhoP --include='*.swift' "$type_declaration" Sources | sort | uniq -d)

if [ "$breaches" -gt 0 ]; then
  echo "check-architecture: $breaches breach(es) of docs/architecture.md" >&2
  exit 1
fi
echo "check-architecture: every concept in its one home; the module graph follows the data"
