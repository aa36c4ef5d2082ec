import TestSupport
import BlueZ
import Daemon
import FTMS
import Foundation
import Logging
import Testing
import Training

/// The training program: stage targets reach the Control Point writer at the stage starts,
/// failures are retried until the next stage, and stop/replace end a program.
@Suite("Daemon: training programs")
struct TrainingRunnerTests {
    final class Recorder: @unchecked Sendable {
        private let lock = NSLock()
        private var sent: [(MachineCommand, String, Duration)] = []
        private var failuresLeft: Int
        let started = ContinuousClock.now
        init(failures: Int = 0) { failuresLeft = failures }

        func send(_ command: MachineCommand, _ machine: String) throws -> CommandOutcome {
            try lock.withLock {
                sent.append((command, machine, ContinuousClock.now - started))
                if failuresLeft > 0 {
                    failuresLeft -= 1
                    throw LinkError.notReady(machine)
                }
            }
            return CommandOutcome(command: command, request: [], response: ControlPointResponse(requestOpCode: 0x04, result: .success), written: [])
        }

        var commands: [(MachineCommand, String, Duration)] { lock.withLock { sent } }
    }

    static let logger = Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }

    func runner(_ recorder: Recorder, retry: Duration = .milliseconds(50)) -> TrainingRunner {
        TrainingRunner(retryInterval: retry, logger: Self.logger, send: { command, machine in
            try recorder.send(command, machine)
        }, report: { _, _, _, _ in })
    }

    static let plan = TrainingPlan(id: "intervals", duration: .milliseconds(900), stages: [
        TrainingStage(start: .zero, duration: .milliseconds(300), target: .resistance(3)),
        TrainingStage(start: .milliseconds(300), duration: .milliseconds(300), target: .power(180)),
        TrainingStage(start: .milliseconds(600), duration: .milliseconds(300), target: .resistance(8)),
    ])

    @Test func sendsEachStageTargetAtItsStartInOrder() async throws {
        let recorder = Recorder()
        let runner = runner(recorder)
        await runner.start(Self.plan, on: "SF-Bike-0001")
        #expect(await runner.active(on: "sf-bike-0001") == "intervals")
        let done = try await eventually {
            let active = await runner.active(on: "SF-Bike-0001")
            return recorder.commands.count >= 3 && active == nil
        }
        #expect(done)
        let sent = recorder.commands
        #expect(sent.map(\.0) == [.resistance(3), .power(watts: 180), .resistance(8)])
        #expect(sent.allSatisfy { $0.1 == "SF-Bike-0001" })
        // Each went no earlier than its stage start (the clock only ever runs late).
        for (entry, start) in zip(sent, [0, 300, 600]) {
            #expect(entry.2 >= .milliseconds(start))
        }
        #expect(await runner.active(on: "SF-Bike-0001") == nil)
    }

    @Test func retriesAFailedCommandUntilTheNextStage() async throws {
        let recorder = Recorder(failures: 2)
        let runner = runner(recorder)
        // A first stage long enough for two retries 50 ms apart on any machine.
        let plan = TrainingPlan(id: "intervals", duration: .seconds(6), stages: [
            TrainingStage(start: .zero, duration: .seconds(5), target: .resistance(3)),
            TrainingStage(start: .seconds(5), duration: .milliseconds(500), target: .power(180)),
            TrainingStage(start: .milliseconds(5500), duration: .milliseconds(500), target: .resistance(8)),
        ])
        await runner.start(plan, on: "SF-Bike-0001")
        #expect(try await eventually { await runner.active(on: "SF-Bike-0001") == nil })
        let sent = recorder.commands.map(\.0)
        // Two refusals of the first target, the third try lands, then the rest once each.
        #expect(sent == [.resistance(3), .resistance(3), .resistance(3), .power(watts: 180), .resistance(8)])
    }

    @Test func stopEndsTheProgramAndAStartReplacesIt() async throws {
        let recorder = Recorder()
        let runner = runner(recorder)
        // Long stages: the stop certainly comes before the second one, however slow the machine.
        let long = TrainingPlan(id: "intervals", duration: .seconds(20), stages: [
            TrainingStage(start: .zero, duration: .seconds(10), target: .resistance(3)),
            TrainingStage(start: .seconds(10), duration: .seconds(10), target: .power(180)),
        ])
        await runner.start(long, on: "SF-Bike-0001")
        #expect(try await eventually { !recorder.commands.isEmpty })
        #expect(await runner.stop(on: "SF-Bike-0001") == "intervals")
        #expect(await runner.stop(on: "SF-Bike-0001") == nil)
        try await Task.sleep(for: .milliseconds(700))
        #expect(recorder.commands.map(\.0) == [.resistance(3)])

        let other = TrainingPlan(id: "steady", duration: .milliseconds(200), stages: [
            TrainingStage(start: .zero, duration: .milliseconds(200), target: .power(120)),
        ])
        await runner.start(long, on: "SF-Bike-0001")
        await runner.start(other, on: "SF-Bike-0001")
        #expect(await runner.active(on: "SF-Bike-0001") == "steady")
        #expect(try await eventually { await runner.active(on: "SF-Bike-0001") == nil })
        try await Task.sleep(for: .milliseconds(700))
        // The replaced program never reached its second stage; the new one sent its own target.
        #expect(!recorder.commands.contains { $0.0 == .power(watts: 180) })
        #expect(recorder.commands.contains { $0.0 == .power(watts: 120) })
    }
}
