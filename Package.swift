// swift-tools-version: 6.1
//
// The module graph reads as the data flow (docs/contract.md §1):
//
//   CDBus → DBus → BlueZ ─┐
//   Capture ──────────────┴→ FTMS → Workout → Store → Upload
//                                      ├───→ Floor (which gateway of the gym holds which machine)
//                                      └───→ Publish (metrics socket), MQTT (CMosquitto)
//
// FTMS (the codec), Workout (the session engine) and Floor (placement, claims and mirrored
// checkpoints on the broker) are pure: no I/O, no clocks they are not given. The daemon's own pieces sit beside the data flow: Control (the control socket),
// Training (plans from the backend's trainings), DaemonConfig (config.toml), Telemetry
// (Prometheus), Systemd (sd_notify and the unit's directories). Daemon composes all of these.
// Leaves everything may use, each the one place of its concept: JSON (the allocation-free
// writer, the strict reader and the value type they share), DeterministicRandom (SplitMix64,
// for replay, the simulator and every randomised test), CivilTime (the one calendar, instant
// and ISO 8601 text; Workout names its `UTCTime` and `LocalDate`), Clocks (the one injectable
// wall clock, the one place the kernel's clocks are read, the first of an operation or a
// timeout), HostPort (`host:port` split once), RetryTiming (the reconnect backoff of
// BlueZ and MQTT, so the broker client does not link libdbus), OwnThread (blocking work on a
// thread of its own: the doctor's probes, the tests' reads) and ProcessOutput (whole lines to
// stdout and stderr). FTMS holds the one MachineType: bike or rower, and what follows from it.
// LocalSocket is what the control and metrics sockets share: the line framing with its length
// limit (a NIO decoder), the socket file's placement (bound in a private directory, renamed
// into place with its mode and group already set), the one error of both, the "is anyone
// listening" probe, the one Unix socket address (sockaddr_un is made nowhere else) and the one
// blocking client (the CLI's control requests, `monitor` through the daemon, the doctor, the test
// support); MetricsClient is the metrics socket's async one.
//
// Executables:
//   ftms-bridged   the daemon, which the unit runs: Daemon and DaemonConfig and what they need;
//                  not the dashboard, Doctor, the bulk decoder or replay.
//   ftms-bridge    the operator's commands (scan, monitor, control, decode, replay, watch,
//                  dashboard, doctor, login, logout, status, queue, upload; `run` execs
//                  ftms-bridged); it also links Dashboard (Hummingbird) and Doctor (CBluetooth),
//                  not Daemon: what `replay --publish` shares with the daemon is Publish's.
//   ftms-sim       a simulated BlueZ 5.66 with SolidFocus machines (Simulator).
//   ftms-backend   the reference SolidFocus backend (ReferenceBackend, Hummingbird).
//   ftms-soak, ftms-fuzz   the soak test and the libFuzzer target.
// BlueZTesting and MQTTTesting start a private dbus-daemon, the fake BlueZ and a private
// mosquitto for the tests, on TestSupport (temporary directories, the child spawner, waits),
// which links neither libdbus nor libmosquitto. Benchmarks live in their own package under `Benchmarks/`, so the
// daemon's build never pays for the benchmark dependencies.
//
// Library products are what an adopter builds on: the codec (FTMS, JSON), Capture, the
// metrics socket's client (MetricsClient, as gpsd ships libgps beside gpsd), the
// simulator and the testing support (Simulator, TestSupport, BlueZTesting, MQTTTesting, ReferenceBackend,
// DeterministicRandom, and Clocks, whose WallClock their initialisers take), and what the benchmark package measures (DBus, Workout, Store, Publish,
// MQTT, Dashboard). The daemon's own modules (BlueZ, Upload, Control, LocalSocket, Systemd,
// Training, DaemonConfig, Telemetry, Doctor, Daemon) use `package` access: visible to this
// package's executables and tests, an API to nobody else.
import PackageDescription

let strict: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

let package = Package(
    name: "ftms-bridge",
    products: [
        .library(name: "JSON", targets: ["JSON"]),
        .library(name: "FTMS", targets: ["FTMS"]),
        .library(name: "DBus", targets: ["DBus"]),
        .library(name: "TestSupport", targets: ["TestSupport"]),
        .library(name: "BlueZTesting", targets: ["BlueZTesting"]),
        .library(name: "Workout", targets: ["Workout"]),
        .library(name: "Capture", targets: ["Capture"]),
        .library(name: "Simulator", targets: ["Simulator"]),
        .library(name: "DeterministicRandom", targets: ["DeterministicRandom"]),
        .library(name: "Clocks", targets: ["Clocks"]),
        .library(name: "Publish", targets: ["Publish"]),
        .library(name: "MetricsClient", targets: ["MetricsClient"]),
        .library(name: "Store", targets: ["Store"]),
        .library(name: "ReferenceBackend", targets: ["ReferenceBackend"]),
        .library(name: "Dashboard", targets: ["Dashboard"]),
        .library(name: "MQTT", targets: ["MQTT"]),
        .library(name: "MQTTTesting", targets: ["MQTTTesting"]),
        .executable(name: "ftms-bridge", targets: ["ftms-bridge"]),
        .executable(name: "ftms-bridged", targets: ["ftms-bridged"]),
        .executable(name: "ftms-sim", targets: ["ftms-sim"]),
        .executable(name: "ftms-backend", targets: ["ftms-backend"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/apple/swift-crypto", from: "4.5.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        .package(url: "https://github.com/LebJe/TOMLKit", from: "0.6.0"),
    ],
    targets: [
        // Whole lines to stdout and stderr, the one writer every executable and the daemon's log use.
        .target(name: "ProcessOutput", swiftSettings: strict),
        // JSON, once: the allocation-free writer, the strict reader and the value they share.
        .target(name: "JSON", swiftSettings: strict),
        // SplitMix64: one seeded generator for replay, the simulator and every randomised test.
        .target(name: "DeterministicRandom", swiftSettings: strict),
        // What both local sockets share: the line framing, placement, errors, address and client.
        .target(name: "LocalSocket", dependencies: ["ProcessOutput", "Clocks", .product(name: "NIOCore", package: "swift-nio")], swiftSettings: strict),
        // The one calendar (days since 1970 ⇄ proleptic Gregorian dates, `LocalDate`), the one
        // instant (`UTCTime`) and the one ISO 8601 parser and formatter: for Workout, Capture,
        // the store, the daemon and the reference backend.
        .target(name: "CivilTime", swiftSettings: strict),
        // Time as the product reads and waits for it: the one injectable wall clock, the one
        // place the kernel's clocks are read, and the first of an operation or a timeout.
        .target(name: "Clocks", dependencies: ["CivilTime"], swiftSettings: strict),
        // Bounded exponential backoff with jitter: Bluetooth and the broker reconnect with the same.
        .target(name: "RetryTiming", dependencies: ["Clocks"], swiftSettings: strict),
        // Blocking work on a thread of its own: the doctor's probes, the tests' blocking reads and waits.
        .target(name: "OwnThread", swiftSettings: strict),
        // `host:port` split once (the dashboard's and Prometheus's listen addresses, the broker
        // URL), and whether a listen address is loopback, judged once.
        .target(name: "HostPort", swiftSettings: strict),
        // libdbus-1, from Debian's libdbus-1-dev (scripts/install-deps.sh installs it).
        .systemLibrary(name: "CDBus", pkgConfig: "dbus-1", providers: [.apt(["libdbus-1-dev"])]),
        // A hand-written Swift binding over libdbus: one thread owns the connection, async calls on top.
        .target(name: "DBus", dependencies: ["CDBus", "Clocks"], swiftSettings: strict),
        // BlueZ 5.66's D-Bus API: object cache, discovery, machines.
        .target(name: "BlueZ", dependencies: ["DBus", "FTMS", "RetryTiming", "Clocks"], swiftSettings: strict),
        // What every test support needs and no test double is: a temporary directory, the one
        // child spawner and reaper, the waits, the manual clock. No libdbus, no broker:
        // BlueZTesting and MQTTTesting build on it.
        .target(name: "TestSupport", dependencies: ["ProcessOutput", "CivilTime", "Clocks", "OwnThread"], swiftSettings: strict),
        // Test doubles shipped as a module: a private dbus-daemon and the fake BlueZ, for our
        // tests and for integrators developing without hardware.
        .target(name: "BlueZTesting", dependencies: ["DBus", "LocalSocket", "ProcessOutput", "TestSupport"], swiftSettings: strict),
        // Pure, allocation-free FTMS 1.0 codec: no I/O, no clocks, no Foundation.
        .target(name: "FTMS", dependencies: ["JSON"], swiftSettings: strict, linkerSettings: [.linkedLibrary("m")]),
        // Pure workout engine: samples and a clock in, session events out (contract §5).
        .target(name: "Workout", dependencies: ["FTMS", "JSON", "CivilTime"], swiftSettings: strict),
        // The floor (contract §11): which gateway of a gym holds which machine, the claims, presences
        // and mirrored checkpoints the gateways share through the broker. Pure, as Workout is: the
        // daemon's FloorCoordinator feeds it messages and the time they arrived.
        .target(name: "Floor", dependencies: ["Workout", "JSON"], swiftSettings: strict),
        // Capture formats: btsnoop (hand-written reader) and .ftmscap JSON lines (contract §8).
        .target(name: "Capture", dependencies: ["FTMS", "JSON", "CivilTime", "ProcessOutput"], swiftSettings: strict),
        // The local metrics socket (contract §7): NDJSON envelopes fanned out to many readers on SwiftNIO,
        // the payloads of its messages (MetricsPayloads) and the one way the daemon and `replay
        // --publish` publish them (LivePublisher; the daemon's MQTT publisher is its EnvelopeForwarder).
        .target(
            name: "Publish",
            dependencies: [
                "FTMS", "Workout", "JSON", "LocalSocket", "ProcessOutput", "CivilTime", "Clocks", .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            swiftSettings: strict
        ),
        // The metrics socket's one client (reconnecting with RetryTiming's backoff, lines read by
        // Publish's envelope reader): what the dashboard, `watch`, the tests and integrators read
        // the socket with, without linking the daemon.
        .target(
            name: "MetricsClient",
            dependencies: [
                "Publish", "LocalSocket", "RetryTiming", "ProcessOutput", .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            swiftSettings: strict
        ),
        // The durable local store (contract §6): one SQLite database through GRDB, and the one
        // owner of "a finished session is never lost" (FinishedSessionKeeper), which the daemon
        // and `replay --queue` share; it logs through swift-log, as the daemon does.
        .target(
            name: "Store",
            dependencies: [
                "Workout", "JSON", "ProcessOutput", "Clocks", .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),
        // The SolidFocus backend client and the SolidFocus procedures: batch upload, stats, tokens.
        .target(
            name: "Upload",
            dependencies: ["Store", "Workout", "JSON", "Clocks", "HostPort", .product(name: "AsyncHTTPClient", package: "async-http-client")],
            swiftSettings: strict
        ),
        // A reference SolidFocus backend (Hummingbird) with fault injection: product for
        // integrators and the peer of the upload tests.
        .target(
            name: "ReferenceBackend",
            dependencies: [
                "JSON", "CivilTime", "Clocks", "ProcessOutput", .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: strict
        ),
        .executableTarget(
            name: "ftms-backend",
            dependencies: ["ReferenceBackend", "ProcessOutput", .product(name: "ArgumentParser", package: "swift-argument-parser")],
            swiftSettings: strict
        ),
        // A BlueZ 5.66 + SolidFocus machine simulator on the DBus binding's export API: product for
        // integrators, and the peer of the integration tests.
        .target(name: "Simulator", dependencies: ["DBus", "FTMS", "DeterministicRandom", "Clocks"], swiftSettings: strict),
        .executableTarget(
            name: "ftms-sim",
            dependencies: ["Simulator", "Capture", "ProcessOutput", .product(name: "ArgumentParser", package: "swift-argument-parser")],
            swiftSettings: strict
        ),
        // sd_notify over the NOTIFY_SOCKET datagram socket, hand-written: libsystemd's is the
        // only implementation, and one sendmsg is not worth a C dependency.
        .target(name: "Systemd", dependencies: ["LocalSocket", "ProcessOutput", "Clocks"], swiftSettings: strict),
        // The control socket (contract §7, owner only): one JSON request line, one JSON answer line.
        .target(
            name: "Control",
            dependencies: ["JSON", "LocalSocket", "ProcessOutput", .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOPosix", package: "swift-nio")],
            swiftSettings: strict
        ),
        // SolidFocus's trainings as plans: which target holds at which second. Pure.
        .target(name: "Training", swiftSettings: strict),
        // /etc/ftms-bridge/config.toml: every key, its default, and one-line errors naming the key.
        .target(
            name: "DaemonConfig",
            dependencies: ["Workout", "ProcessOutput", "HostPort", "Clocks", .product(name: "TOMLKit", package: "TOMLKit")],
            swiftSettings: strict
        ),
        // Prometheus metrics on loopback: swift-metrics with swift-prometheus, served by NIOHTTP1.
        .target(
            name: "Telemetry",
            dependencies: [
                "HostPort", "Clocks",
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            swiftSettings: strict
        ),
        // libbluetooth (Debian's libbluetooth-dev), for the controller's HCI version in `doctor`.
        .systemLibrary(name: "CBluetooth", pkgConfig: "bluez", providers: [.apt(["libbluetooth-dev"])]),
        // `ftms-bridge doctor`: the operator's first look, BlueZ to backend.
        .target(
            name: "Doctor",
            dependencies: [
                "CBluetooth", "DBus", "BlueZ", "Store", "Upload", "DaemonConfig", "MQTT", "RetryTiming", "JSON", "LocalSocket", "ProcessOutput",
                "Clocks", "OwnThread", "Publish", "Floor",
            ],
            swiftSettings: strict
        ),
        // The gym-floor dashboard: envelopes from the metrics socket (or MQTT) folded into tiles,
        // served as a page with Server-Sent Events by Hummingbird; session plots as SVG.
        .target(
            name: "Dashboard",
            dependencies: [
                "Publish",
                "Floor",
                "MetricsClient",
                "MQTT",
                "Workout",
                "Store",
                "JSON",
                "ProcessOutput",
                "HostPort",
                "Clocks",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            swiftSettings: strict
        ),
        // libmosquitto, from Debian's libmosquitto-dev (scripts/install-deps.sh installs it).
        .systemLibrary(name: "CMosquitto", pkgConfig: "libmosquitto", providers: [.apt(["libmosquitto-dev"])]),
        // An MQTT client on libmosquitto: one thread owns the connection; bounded queue, reconnect forever.
        .target(name: "MQTT", dependencies: ["CMosquitto", "RetryTiming", "ProcessOutput", "Clocks", "HostPort"], swiftSettings: strict),
        // A private mosquitto broker for tests and integrators, as BlueZTesting's PrivateBus is a dbus-daemon.
        .target(name: "MQTTTesting", dependencies: ["MQTT", "TestSupport"], swiftSettings: strict),
        // The kernel's clock state (adjtimex), which Swift's Glibc module leaves out.
        .systemLibrary(name: "CClock"),
        // The daemon: the pieces above composed into the service a gym runs (no dashboard: that
        // is `ftms-bridge dashboard`, its own process).
        .target(
            name: "Daemon",
            dependencies: [
                "FTMS", "JSON", "DBus", "BlueZ", "Workout", "Store", "Upload", "Publish", "Control", "Training",
                "DaemonConfig", "Floor", "Telemetry", "Systemd", "MQTT", "ProcessOutput", "RetryTiming", "CClock", "CivilTime", "Clocks", "OwnThread",
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            swiftSettings: strict
        ),
        // `ftms-bridged`: the daemon executable the unit runs. It links what the daemon needs and
        // nothing an operator's commands need (Hummingbird, Doctor, the bulk decoder, replay).
        .executableTarget(
            name: "ftms-bridged",
            dependencies: [
                "Daemon", "DaemonConfig", "ProcessOutput",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: strict
        ),
        // `ftms-bridge`: the operator's commands; `run` execs `ftms-bridged`.
        .executableTarget(
            name: "ftms-bridge",
            dependencies: [
                "ProcessOutput",
                "Dashboard",
                "MQTT",
                "Doctor",
                "Control",
                "DaemonConfig",
                "FTMS",
                "JSON",
                "DeterministicRandom",
                "BlueZ",
                "Capture",
                "Workout",
                "Store",
                "Upload",
                "Publish",
                "MetricsClient",
                "LocalSocket",
                "CivilTime",
                "Clocks",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),
        // Long-running soak of many machines through injected faults (scripts/soak.sh, CI runs a short one).
        .executableTarget(name: "ftms-soak", dependencies: ["BlueZ", "BlueZTesting", "FTMS", "DBus", "RetryTiming", "Clocks"], swiftSettings: strict),
        // libFuzzer entry point; built only by scripts/fuzz.sh with -sanitize=fuzzer.
        .executableTarget(name: "ftms-fuzz", dependencies: ["FTMS", "JSON"], path: "Fuzz/Sources", swiftSettings: strict),
        .testTarget(
            name: "FTMSTests",
            dependencies: ["FTMS", "JSON", "DeterministicRandom"],
            resources: [.copy("Vectors")],
            swiftSettings: strict
        ),
        // The one JSON reader against Foundation's, and the writer against the reader.
        .testTarget(name: "JSONTests", dependencies: ["JSON", "DeterministicRandom"], swiftSettings: strict),
        // The line framing against every way a stream can be cut into chunks (NIO's decoder
        // verifier), and the sockets' one client against a real peer.
        .testTarget(
            name: "LocalSocketTests",
            dependencies: [
                "LocalSocket", "DeterministicRandom", "TestSupport", .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"), .product(name: "NIOTestUtils", package: "swift-nio"),
            ],
            swiftSettings: strict
        ),
        // The binding against a real private dbus-daemon.
        .testTarget(name: "DBusTests", dependencies: ["DBus", "BlueZTesting", "TestSupport", "OwnThread"], swiftSettings: strict),
        .testTarget(name: "BlueZTests", dependencies: ["BlueZ", "BlueZTesting", "RetryTiming", "TestSupport"], swiftSettings: strict),
        .testTarget(
            name: "PublishTests",
            dependencies: [
                "Publish", "FTMS", "Workout", "JSON", "LocalSocket", "DeterministicRandom", "TestSupport", "CivilTime", "Clocks", .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"), .product(name: "NIOEmbedded", package: "swift-nio"),
            ],
            swiftSettings: strict
        ),
        // The metrics socket's client against a real server that goes away and comes back.
        .testTarget(
            name: "MetricsClientTests",
            dependencies: [
                "MetricsClient", "Publish", "JSON", "RetryTiming", "TestSupport", "CivilTime", "Clocks", .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "StoreTests", dependencies: ["DeterministicRandom", "Store", "Workout", "TestSupport", "Clocks"], exclude: ["Fixtures"],
            swiftSettings: strict),
        .testTarget(name: "UploadTests", dependencies: ["DeterministicRandom", "Upload", "Store", "Workout", "TestSupport", "Clocks"], swiftSettings: strict),
        .testTarget(
            name: "ReferenceBackendTests",
            dependencies: ["ReferenceBackend", "JSON", "CivilTime", "Clocks", "DeterministicRandom", "ftms-backend", "TestSupport", "OwnThread", .product(name: "HummingbirdTesting", package: "hummingbird")],
            swiftSettings: strict
        ),
        // The one calendar, instant and ISO 8601 text against every form their users read, and Foundation.
        .testTarget(name: "CivilTimeTests", dependencies: ["CivilTime", "DeterministicRandom"], swiftSettings: strict),
        // Blocking work on a thread of its own, each call at once.
        .testTarget(name: "OwnThreadTests", dependencies: ["OwnThread"], swiftSettings: strict),
        // The one host:port splitter, against every spelling its three users accept or refuse.
        .testTarget(name: "HostPortTests", dependencies: ["HostPort"], swiftSettings: strict),
        // The first of an operation or a timeout, and the manual clock the other tests run on.
        .testTarget(name: "ClocksTests", dependencies: ["Clocks", "CivilTime", "TestSupport"], swiftSettings: strict),
        // The placement rules one by one, the wire against garbage, and a simulated 60-machine gym.
        .testTarget(name: "FloorTests", dependencies: ["Floor", "Workout", "FTMS", "JSON", "DeterministicRandom", "CivilTime", "OwnThread"], swiftSettings: strict),
        .testTarget(name: "WorkoutTests", dependencies: ["DeterministicRandom", "Workout", "FTMS", "JSON"], swiftSettings: strict),
        .testTarget(
            name: "CaptureTests",
            dependencies: ["Capture", "FTMS", "DeterministicRandom"],
            resources: [.copy("Fixtures")],
            swiftSettings: strict
        ),
        .testTarget(
            name: "SimulatorTests",
            dependencies: ["Simulator", "BlueZ", "BlueZTesting", "TestSupport", "OwnThread", "RetryTiming"],
            swiftSettings: strict
        ),
        .testTarget(name: "SystemdTests", dependencies: ["Systemd"], swiftSettings: strict),
        .testTarget(
            name: "ControlTests",
            dependencies: ["Control", "JSON", "LocalSocket", "TestSupport", "OwnThread", "DeterministicRandom", .product(name: "NIOEmbedded", package: "swift-nio")],
            swiftSettings: strict
        ),
        .testTarget(name: "TrainingTests", dependencies: ["Training", "DeterministicRandom"], swiftSettings: strict),
        .testTarget(name: "DaemonConfigTests", dependencies: ["DeterministicRandom", "DaemonConfig", "Workout", "TestSupport"], swiftSettings: strict),
        .testTarget(
            name: "TelemetryTests",
            dependencies: [
                "DeterministicRandom", "Telemetry", "Workout", .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            swiftSettings: strict
        ),
        .testTarget(name: "DoctorTests", dependencies: ["Doctor", "BlueZTesting", "TestSupport", "JSON", "LocalSocket", "Store", "MQTTTesting", "Clocks", "Floor", "MQTT", "RetryTiming"], swiftSettings: strict),
        .testTarget(name: "DaemonTests", dependencies: ["DeterministicRandom", "Daemon", "Publish", "CivilTime", "Clocks", "MQTT", "MQTTTesting", "RetryTiming", "BlueZ", "BlueZTesting", "TestSupport", "DBus", "Store", "Workout", "Training", "FTMS", "JSON", .product(name: "Logging", package: "swift-log"), .product(name: "NIOPosix", package: "swift-nio"), .product(name: "NIOEmbedded", package: "swift-nio")], swiftSettings: strict),
        .testTarget(
            name: "DashboardTests",
            dependencies: ["Dashboard", "Floor", "Publish", "MetricsClient", "MQTT", "MQTTTesting", "RetryTiming", "BlueZ", "TestSupport", "Store", "Workout", "Clocks", .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOPosix", package: "swift-nio")],
            swiftSettings: strict
        ),
        // The MQTT client against a real mosquitto.
        .testTarget(name: "MQTTTests", dependencies: ["DeterministicRandom", "MQTT", "MQTTTesting", "RetryTiming", "BlueZ", "TestSupport", "Workout"], swiftSettings: strict),
        // Runs the built `ftms-bridge` as a real process over real pipes and files.
        .testTarget(name: "CLITests", dependencies: ["DeterministicRandom", "ftms-bridge", "ftms-bridged", "BlueZTesting", "DBus", "MQTTTesting", "TestSupport", "OwnThread", "JSON"], swiftSettings: strict),
    ]
)
