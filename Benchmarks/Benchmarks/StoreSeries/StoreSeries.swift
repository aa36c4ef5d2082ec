import Benchmark
import DeterministicRandom
import Dashboard
import FTMS
import Foundation
import Store
import Synchronization
import Workout

/// What the plot series cost on a real SQLite file (WAL, `synchronous=FULL`, so every iteration
/// of the first two is one transaction and one `fdatasync`):
/// - the daemon's checkpoint batch of 10 machines, without and with their plot points (15 s of
///   series each, one point a second: what a timed batch writes, `CheckpointBatch.seriesBatchPoints`;
///   with the default 5 s interval one batch in three carries them), so the ratio says what the
///   series adds to a checkpoint;
/// - `queue --plot`'s work for a one-hour session: read its 3,600 points and draw the SVG.
let machines = (0..<10).map { index in
    MachineIdentity(name: "SF-Bike-00\(10 + index)", address: "C0:11:22:33:44:\(10 + index)", model: "SF-Bike-M1", type: .bike)
}
let origin = UTCTime(secondsSince1970: 1_795_248_000)

/// A real open session of `machine` from the engine: 60 s of riding.
func snapshot(_ machine: MachineIdentity, seed: UInt64) -> SessionSnapshot? {
    var engine = SessionEngine(machine: machine, ids: RandomSessionIDs(using: SplitMix64(seed: seed)))
    for second in 0...60 {
        var values = FieldValues()
        values.set(.instantaneousSpeed, value: 30)
        values.set(.instantaneousCadence, value: 85)
        values.set(.instantaneousPower, value: 180)
        values.set(.heartRate, value: 140)
        values.set(.totalDistance, value: Double(1000 + 8 * second))
        _ = engine.ingest(DataRecord(kind: .indoorBikeData, values: values), at: Timestamp(monotonic: .seconds(second), wallOrigin: origin))
    }
    return engine.snapshot(at: Timestamp(monotonic: .seconds(60), wallOrigin: origin))
}

func point(_ second: Int) -> SeriesPoint {
    SeriesPoint(
        t: Double(second), power: Double(150 + second % 90), cadence: Double(80 + second % 12), speed: 30.5,
        heartRate: Double(120 + second % 40), distance: Double(8 * second))
}

/// One store per benchmark, opened on first use and kept across its samples (the checkpoint
/// benchmarks write the same file on and on, as the daemon does); each benchmark's teardown
/// removes its directory.
let storeDirectory = FileManager.default.temporaryDirectory.appendingPathComponent("ftms-bench-series-\(getpid())").path
let checkpointsOnly = try? GatewayStore(directory: storeDirectory + "/checkpoints")
let checkpointsAndSeries = try? GatewayStore(directory: storeDirectory + "/series")
let oneHour = try? GatewayStore(directory: storeDirectory + "/hour")
/// Where the next batch's points start: the series grows as a ride's does.
let seriesSecond = Mutex(0)
@Sendable func removeStores() async throws { try? FileManager.default.removeItem(atPath: storeDirectory) }

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(metrics: [.wallClock, .mallocCountTotal], maxDuration: .seconds(5), maxIterations: 400)
    let snapshots = machines.enumerated().compactMap { snapshot($1, seed: UInt64($0 + 1)) }

    Benchmark("saveAll: 10 checkpoints", closure: { benchmark async throws in
        guard let store = checkpointsOnly else { return }
        for _ in benchmark.scaledIterations { try await store.saveAll(snapshots) }
    }, teardown: removeStores)

    Benchmark("saveAll: 10 checkpoints + 10 × 15 series points", closure: { benchmark async throws in
        guard let store = checkpointsAndSeries else { return }
        for _ in benchmark.scaledIterations {
            let start = seriesSecond.withLock { value in
                defer { value += 15 }
                return value
            }
            let chunks = snapshots.map { SeriesChunk(sessionID: $0.sessionID, machine: $0.machine, points: (start..<start + 15).map(point)) }
            try await store.saveAll(snapshots, series: chunks)
        }
    }, teardown: removeStores)

    // The CPU part of the series' cost: encoding a batch's points (no I/O).
    Benchmark("encode 10 × 15 series points as JSON") { benchmark in
        let chunks = (0..<10).map { _ in (0..<15).map(point) }
        for _ in benchmark.scaledIterations {
            for chunk in chunks { blackHole(try? JSONEncoder().encode(chunk)) }
        }
    }

    Benchmark("queue --plot: a 1-hour session's series read and drawn as SVG", configuration: .init(maxDuration: .seconds(5), maxIterations: 100), closure: { benchmark async throws in
        guard let store = oneHour, let session = snapshots.first else { return }
        if try await store.series(sessionID: session.sessionID) == nil {
            // As the daemon stores it: one chunk of 15 points per timed batch.
            for start in stride(from: 0, to: 3600, by: 15) {
                try await store.saveAll([], series: [SeriesChunk(sessionID: session.sessionID, machine: session.machine, points: (start..<start + 15).map(point))])
            }
            let footprint = try await store.seriesFootprint()
            let svg = try await SessionPlot.stored(session.sessionID, in: store).svg
            print("one hour of series: \(footprint.points) points in \(footprint.chunks) chunks, \(footprint.bytes) bytes of points; SVG \(svg.utf8.count) bytes")
        }
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            blackHole(try await SessionPlot.stored(session.sessionID, in: store).svg)
        }
    }, teardown: removeStores)
}
