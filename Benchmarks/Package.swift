// swift-tools-version: 6.1
//
// Benchmarks for ftms-bridge (ordo-one/benchmark). A package of its own, depending on the
// product by path, so the daemon's build and `swift test` never compile the benchmark
// harness. Run with `scripts/bench.sh` or `swift package benchmark` in this folder.
import PackageDescription

import struct Foundation.URL

/// A path dependency is named after its folder, which differs between checkouts.
let productPackage = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().lastPathComponent

let package = Package(
    name: "ftms-bridge-benchmarks",
    dependencies: [
        .package(path: ".."),
        .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.1", traits: ["MallocInterposer"]),
        // Already in the graph through Publish; named here so the Publish benchmark can make event loops,
        // and for nio-floor.
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
    ],
    targets: [
        .executableTarget(
            name: "FTMSDecoding",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "FTMS", package: productPackage),
                .product(name: "JSON", package: productPackage),
            ],
            path: "Benchmarks/FTMSDecoding",
            swiftSettings: [.swiftLanguageMode(.v6)],
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        .executableTarget(
            name: "ReplayPipeline",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "FTMS", package: productPackage),
                .product(name: "DeterministicRandom", package: productPackage),
                .product(name: "Workout", package: productPackage),
            ],
            path: "Benchmarks/ReplayPipeline",
            swiftSettings: [.swiftLanguageMode(.v6)],
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        // The metrics socket: payload check, publish, fan-out to 200 readers.
        .executableTarget(
            name: "PublishFanout",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "Publish", package: productPackage),
                .product(name: "Clocks", package: productPackage),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            path: "Benchmarks/Publish",
            swiftSettings: [.swiftLanguageMode(.v6)],
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        // The store's checkpoint batch with and without plot series, and `queue --plot`'s work.
        .executableTarget(
            name: "StoreSeries",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "FTMS", package: productPackage),
                .product(name: "DeterministicRandom", package: productPackage),
                .product(name: "Workout", package: productPackage),
                .product(name: "Store", package: productPackage),
                .product(name: "Dashboard", package: productPackage),
            ],
            path: "Benchmarks/StoreSeries",
            swiftSettings: [.swiftLanguageMode(.v6)],
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        // The NIO floor: a reader of AcquireNotify datagrams built only on NIO, run by
        // scripts/lib/acquire-floor.c --reader-exec beside the daemon (scripts/bench-notify.py --nio-floor).
        .executableTarget(
            name: "nio-floor",
            dependencies: [
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            path: "Benchmarks/NIOFloor",
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        // Whole-process latency against a BlueZ peer on a private bus (scripts/bench-bluez-latency.sh).
        .executableTarget(
            name: "ftms-latency",
            dependencies: [
                .product(name: "DBus", package: productPackage),
                .product(name: "BlueZTesting", package: productPackage),
            ],
            path: "Benchmarks/BlueZLatency",
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
    ]
)
