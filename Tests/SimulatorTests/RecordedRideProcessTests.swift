import BlueZ
import TestSupport
import FTMS
import Foundation
import Simulator
import Testing

extension SimulatorProcessTests {
    @Suite("ftms-sim --ride")
    struct RecordedRideProcessTests {
        /// Collects a link's notifications on `characteristic` until `count`, or until the
        /// time for them (at 50 a second) and `quiet` more has passed.
        static func receive(
            _ link: MachineLink, on characteristic: Characteristic, count: Int, quiet: Duration = .seconds(3)
        ) async -> [[UInt8]] {
            let stream = await link.notifications()
            return await withTaskGroup(of: [[UInt8]]?.self) { group in
                group.addTask {
                    var received: [[UInt8]] = []
                    for await (source, value) in stream where source == characteristic {
                        received.append(value)
                        if received.count == count { break }
                    }
                    return received
                }
                // A watchdog: cancelled, the receiver stops waiting and returns what it has.
                group.addTask {
                    try? await Task.sleep(for: quiet + .seconds(Double(count) / 50))
                    return nil
                }
                var received: [[UInt8]] = []
                for await outcome in group {
                    if let outcome { received = outcome }
                    group.cancelAll()
                }
                return received
            }
        }

        /// End to end: the bike and the rower ride the demo's captures, and a BlueZ client
        /// receives every data notification of each, byte for byte and in order; then each
        /// source ends.
        @Test func aClientReceivesTheCapturesFramesByteForByte() async throws {
            let rig = try await SimulatorRig.start([
                "--bikes", "1", "--rowers", "1", "--rate", "100",
                "--ride", "bike=" + CaptureFixture.path("bike-steady.ftmscap"),
                "--ride", "rower=" + CaptureFixture.path("rower-viking-split.ftmscap"),
            ])
            defer { rig.stop() }
            let bike = try CaptureFixture.frames("bike-steady.ftmscap", on: .indoorBikeData)
            let rower = try CaptureFixture.frames("rower-viking-split.ftmscap", on: .rowerData)
            let bikeLink = try await rig.connectedLink("SF-Bike-0001")
            let rowerLink = try await rig.connectedLink("SF-Rower-0001")
            async let bikeFrames = Self.receive(bikeLink, on: .indoorBikeData, count: bike.count)
            async let rowerFrames = Self.receive(rowerLink, on: .rowerData, count: rower.count)
            let (receivedBike, receivedRower) = await (bikeFrames, rowerFrames)
            #expect(receivedBike.count == 779 && receivedBike == bike, "\(receivedBike.count) bike frames")
            #expect(receivedRower.count == 939 && receivedRower == rower, "\(receivedRower.count) rower frames")
            try await rig.waitForLog("data source of SF-Bike-0001 ended")
            try await rig.waitForLog("data source of SF-Rower-0001 ended")
            #expect(rig.simulator.log.contains("ride SF-Bike-0001: \(CaptureFixture.path("bike-steady.ftmscap")), 779 frames at 100.0 Hz"))
        }

        /// Without --ride-loop the machine falls silent after the last frame; with it, the first
        /// frame follows the last. The Control Point still answers a ridden machine.
        @Test(arguments: [false, true])
        func endsOrLoops(_ loop: Bool) async throws {
            let scratch = try TemporaryDirectory(prefix: "ftms-ride")
            let capture = try CaptureFixture.write([
                #"{"format":"ftmscap","version":1,"machine":{"name":"SF-Bike-0077","type":"bike"}}"#,
                #"{"t":1,"uuid":"2ad2","op":"notify","hex":"4400e80350006400"}"#,
                #"{"t":1.5,"uuid":"2ada","op":"notify","hex":"04"}"#,
                #"{"t":2,"uuid":"2ad2","op":"notify","hex":"4400d00754006e00"}"#,
                #"{"t":3,"uuid":"2ad2","op":"notify","hex":"4400b80b58007800"}"#,
            ], in: scratch)
            let rig = try await SimulatorRig.start(["--bikes", "1", "--rate", "20", "--ride", "bike=" + capture] + (loop ? ["--ride-loop"] : []))
            defer { rig.stop() }
            let link = try await rig.connectedLink("SF-Bike-0001")
            #expect(try await link.perform(.setTargetResistanceLevel(12)).result == .success)
            let frames = ["4400e80350006400", "4400d00754006e00", "4400b80b58007800"].map(CaptureFixture.bytes)
            let received = await Self.receive(link, on: .indoorBikeData, count: 8, quiet: .seconds(1))
            if loop {
                #expect(received == frames + frames + frames.prefix(2))
            } else {
                #expect(received == frames)
                #expect(rig.simulator.log.contains("data source of SF-Bike-0001 ended"))
            }
        }

        /// A capture that cannot be ridden is one line and status 1, before the bus is touched
        /// (the bus here does not exist, and the error is about the capture, not the bus).
        @Test func unridableCapturesAreOneLineAndStatus1() async throws {
            let scratch = try TemporaryDirectory(prefix: "ftms-ride")
            let corrupt = try CaptureFixture.write([
                #"{"format":"ftmscap","version":1,"machine":{"type":"bike"}}"#,
                #"{"t":1,"uuid":"2ad2","op":"notify","hex":"4400e80350006400"}"#,
                #"{"t":2,"uuid":"2ad2","op":"notify","hex":"#,
            ], name: "corrupt.ftmscap", in: scratch)
            let rowerOnly = try CaptureFixture.write(
                [#"{"t":1,"uuid":"2ad1","op":"notify","hex":"050a000000000100"}"#], name: "rower-only.ftmscap", in: scratch)
            let truncatedSnoop = try CaptureFixture.write([], name: "cut.btsnoop", in: scratch)
            let snoop = try Data(contentsOf: URL(fileURLWithPath: CaptureFixture.path("bike-btmon.btsnoop")))
            // Cut inside the last record (a cut on a record boundary is a shorter, valid capture).
            try snoop.prefix(snoop.count - 5).write(to: URL(fileURLWithPath: truncatedSnoop))
            let cases: [(ride: String, error: String)] = [
                ("bike=/nonexistent/ride.ftmscap", "/nonexistent/ride.ftmscap: No such file or directory"),
                ("bike=" + CaptureFixture.directory.path, "is a directory"),
                ("bike=" + corrupt, "ftmscap line 3"),
                ("bike=" + truncatedSnoop, "btsnoop byte offset 28680: record claims 6 bytes"),
                ("bike=" + rowerOnly, "no indoor_bike_data (0x2ad2) notifications to ride"),
                ("bike=" + CaptureFixture.path("rower-viking-split.ftmscap"), "a rower capture, which a bike machine cannot ride"),
                ("rower=" + CaptureFixture.path("bike-steady.ftmscap"), "a bike capture, which a rower machine cannot ride"),
            ]
            // The capture is refused before the bus is tried: its error never names the bus.
            let bus = "unix:path=/nonexistent/ftms-never-a-bus"
            for (ride, error) in cases {
                let result = try await CommandLineTests.run(["--rowers", "1", "--ride", ride, "--bus", bus])
                #expect(result.status == 1, "\(ride): \(result.stderr)")
                #expect(result.stderr.hasPrefix("ftms-sim: ") && result.stderr.contains(error), "\(ride): \(result.stderr)")
                #expect(result.stderr.filter { $0 == "\n" }.count == 1 && !result.stderr.contains("ftms-never-a-bus"), "\(ride): \(result.stderr)")
                #expect(result.stdout.isEmpty)
            }
        }

        /// A --ride that is not KIND=PATH, names a kind without data, or outnumbers the machines
        /// of its kind is a bad flag: one line and status 2.
        @Test(arguments: [
            (["--ride", "bike"], "is not KIND=PATH"),
            (["--ride", "car=x.ftmscap"], "kind 'car' is not one of bike, rower, ftms"),
            (["--ride", "name-only=x.ftmscap"], "kind 'name-only'"),
            (["--ride", "rower=x.ftmscap"], "--ride rower given 1 time(s) but --rowers is 0"),
            (["--ride", "bike=a", "--ride", "bike=b"], "--ride bike given 2 time(s) but --bikes is 1"),
        ])
        func badRideFlagsAreOneLineAndStatus2(_ arguments: [String], _ error: String) async throws {
            let result = try await CommandLineTests.run(arguments + ["--bus", "unix:path=/nonexistent/socket"])
            #expect(result.status == 2, "\(result.stderr)")
            #expect(result.stderr.hasPrefix("ftms-sim: ") && result.stderr.contains(error), "\(result.stderr)")
            #expect(result.stderr.filter { $0 == "\n" }.count == 1, "\(result.stderr)")
        }
    }
}
