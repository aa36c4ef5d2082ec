import TestSupport
import NIOCore
import NIOPosix
import CivilTime
import Clocks
import Publish
import Testing

/// contract §7: a slow reader never slows the daemon or the other readers.
@Suite("Backpressure")
struct BackpressureTests {
    /// A sample as the daemon will publish it: about 250 bytes of decoded bike data.
    static let sampleJSON = (#"{"characteristic":"indoor_bike_data","uuid":"2ad2","flags":2548,"more_data":false,"#
        + #""instantaneous_speed_kmh":31.42,"instantaneous_cadence_rpm":88.5,"total_distance_m":12034,"resistance_level":12,"#
        + #""instantaneous_power_w":212,"total_energy_kcal":143,"energy_per_hour_kcal":null,"heart_rate_bpm":141,"elapsed_time_s":1804}"#)
    static let statusJSON = #"{"characteristic":"fitness_machine_status","uuid":"2ada","op_code":7,"event":"target_resistance_level_changed","target_resistance_level":12}"#

    static func connectStuckReader(_ path: String, on group: any EventLoopGroup) async throws -> any Channel {
        try await ClientBootstrap(group: group)
            .channelOption(.autoRead, value: false)
            .connect(unixDomainSocketPath: path)
            .get()
    }

    /// THE BAR: 200 readers, one of which never reads. Every other reader receives every
    /// message, in order, with no gap, and the stuck reader's backlog is dropped and then
    /// disconnected rather than kept. Prints the latency figures (publishing costs the same at
    /// the end as at the start: a figure for the `PublishFanout` benchmark, not an assertion
    /// here, where it would measure how busy the machine is).
    @Test
    func twoHundredReadersOneNeverReads() async throws {
        let readerCount = 199
        let messages = 600
        let interval = Duration.milliseconds(5)
        let log = DeliveryLog(readers: readerCount, messages: messages)
        let (sample, status) = (payload(Self.sampleJSON), payload(Self.statusJSON))
        try await withServer(clock: .system, limits: ReaderLimits(readers: readerCount + 1)) { fixture in
            let stuck = try await Self.connectStuckReader(fixture.path, on: fixture.readerGroup)
            for index in 0..<readerCount {
                _ = try await ClientBootstrap(group: fixture.readerGroup)
                    .channelInitializer { channel in
                        channel.eventLoop.makeCompletedFuture { try channel.pipeline.syncOperations.addHandler(SeqTracker(log: log, index: index)) }
                    }
                    .connect(unixDomainSocketPath: fixture.path)
                    .get()
            }
            try await waitUntil("every reader's hello") { log.readers.allSatisfy(\.sawHello) }
            #expect(await fixture.server.metrics.readersConnected == readerCount + 1)

            let clock = ContinuousClock()
            var published: [ContinuousClock.Instant] = []
            var latencies: [Duration] = []
            published.reserveCapacity(messages)
            latencies.reserveCapacity(messages)
            let start = clock.now
            for index in 1...messages {
                let due = start + interval * index
                if clock.now < due { try await Task.sleep(until: due, clock: clock) }
                let machine = "SF-Bike-\(1000 + index % 20)"
                let before = clock.now
                if index % 25 == 0 {
                    try await fixture.server.publish(.status, machine: machine, payload: status)
                } else {
                    try await fixture.server.publish(.sample, machine: machine, sessionID: "session-\(index % 20)", payload: sample)
                }
                let after = clock.now
                published.append(before)
                latencies.append(after - before)
            }
            let publishing = clock.now - start
            // On failure, how many messages how many readers got.
            defer { print("publish-bar: messages received → readers: \(Dictionary(grouping: log.readers.map(\.received), by: { $0 }).mapValues(\.count))") }
            try await waitUntil("every message at every reader", timeout: .seconds(120)) {
                log.readers.allSatisfy { $0.received >= messages || $0.closed }
            }

            let readers = log.readers
            #expect(readers.allSatisfy { !$0.closed }, "a reader that reads was closed")
            #expect(readers.allSatisfy { $0.received == messages }, "received: \(Set(readers.map(\.received)))")
            #expect(readers.allSatisfy { $0.outOfOrder == 0 }, "out of order: \(readers.map(\.outOfOrder).reduce(0, +))")

            let metrics = await fixture.server.metrics
            // Everything dropped was the stuck reader's: the others received every message.
            #expect(metrics.messagesDropped > 0)
            #expect(metrics.messagesPublished == UInt64(messages))
            #expect(metrics.readersConnected + metrics.readersDisconnectedSlow == readerCount + 1)

            let fifth = messages / 5
            let early = Percentiles(Array(latencies[..<fifth]))
            let late = Percentiles(Array(latencies[(messages - fifth)...]))
            let arrivals = log.lastArrival
            let delivery = Percentiles((1...messages).compactMap { seq in arrivals[seq].map { $0 - published[seq - 1] } })
            print("publish-bar: \(readerCount + 1) readers (1 never reads), \(messages) messages in \(publishing)")
            print("publish-bar: publish latency, first fifth: \(early)")
            print("publish-bar: publish latency, last fifth:  \(late)")
            print("publish-bar: time to delivery at the last of \(readerCount) readers: \(delivery)")
            print("publish-bar: stuck reader: \(metrics.messagesDropped) samples dropped, disconnected: \(metrics.readersDisconnectedSlow == 1)")
            try? await stuck.close()
        }
    }

    /// Over the soft limit a reader loses samples but stays; over the hard limit with a message
    /// it cannot lose, it is disconnected; a reader that keeps up loses nothing meanwhile.
    @Test func samplesDropFirstThenTheStuckReaderIsDisconnected() async throws {
        let limits = ReaderLimits(soft: 4096, hard: 16384)
        let (sample, status) = (payload(Self.sampleJSON), payload(Self.statusJSON))
        try await withServer(limits: limits) { fixture in
            let stuck = try await Self.connectStuckReader(fixture.path, on: fixture.readerGroup)
            let (reader, _) = try await fixture.connectPastHello()
            try await waitUntil("both readers") { await fixture.server.metrics.readersConnected == 2 }

            // Samples until the stuck reader is behind enough to lose them (the kernel's
            // socket buffer fills first).
            var samples = 0
            while await fixture.server.metrics.messagesDropped == 0, samples < 20000 {
                try await fixture.server.publish(.sample, machine: "m", payload: sample)
                samples += 1
                if samples % 50 == 0 { try await Task.sleep(for: .milliseconds(1)) }
            }
            for _ in 0..<100 { try await fixture.server.publish(.sample, machine: "m", payload: sample) }
            samples += 100
            var metrics = await fixture.server.metrics
            #expect(metrics.messagesDropped >= 100)
            #expect(metrics.readersDisconnectedSlow == 0)
            #expect(metrics.readersConnected == 2)

            // Statuses cannot be dropped: they fill the room between soft and hard, then the
            // stuck reader goes.
            var statuses = 0
            while await fixture.server.metrics.readersDisconnectedSlow == 0, statuses < 20000 {
                try await fixture.server.publish(.status, machine: "m", payload: status)
                statuses += 1
            }
            metrics = await fixture.server.metrics
            #expect(metrics.readersDisconnectedSlow == 1)
            #expect(metrics.readersConnected == 1)
            let statusLine = 300
            #expect(statuses >= (limits.hard - limits.soft) / statusLine - 1, "disconnected after \(statuses) statuses")
            #expect(statuses <= limits.hard / 100 + 1, "disconnected after \(statuses) statuses")

            // The reader that reads got everything, in order.
            let lines = try await reader.lines(samples + statuses, timeout: .seconds(10))
            #expect(lines.map(seq) == Array(1...UInt64(samples + statuses)))
            try? await stuck.close()
        }
    }
}
