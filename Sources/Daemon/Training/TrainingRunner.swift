package import BlueZ
package import Logging
package import Training

/// Runs SolidFocus's trainings on machines: each stage's target goes to the Control Point at
/// the stage's start, through the same writer an operator's command uses (contract §4).
///
/// One program per machine; starting another replaces it. A command that fails (the machine
/// is reconnecting, control was lost) is retried every `retryInterval` until the next stage
/// is due, so a brief dropout does not leave a rider on the wrong resistance. The program
/// ends at the plan's duration, or when stopped.
package actor TrainingRunner {
    package typealias Send = @Sendable (MachineCommand, String) async throws -> CommandOutcome
    /// Told of each command's outcome (or failure), for the `control` message.
    package typealias Report = @Sendable (_ machine: String, _ plan: TrainingPlan, _ command: MachineCommand, _ result: Result<CommandOutcome, any Error>) async -> Void

    private let send: Send
    private let report: Report
    private let logger: Logger
    private let retryInterval: Duration
    private let timers: any Clock<Duration>
    private var programs: [String: (plan: TrainingPlan, task: Task<Void, Never>, generation: Int)] = [:]
    private var generation = 0

    package init(
        retryInterval: Duration = .seconds(2), timers: any Clock<Duration> = ContinuousClock(), logger: Logger,
        send: @escaping Send, report: @escaping Report
    ) {
        self.timers = timers
        self.retryInterval = retryInterval
        self.logger = logger
        self.send = send
        self.report = report
    }

    /// Starts `plan` on `machine` now, replacing any program running there.
    package func start(_ plan: TrainingPlan, on machine: String) {
        let key = machine.uppercased()
        programs[key]?.task.cancel()
        generation += 1
        let generation = generation
        let task = Task { [send, report, logger, retryInterval, timers] in
            await Self.execute(plan, machine: machine, send: send, report: report, logger: logger, retryInterval: retryInterval, timers: timers)
            self.finished(key, generation: generation)
        }
        programs[key] = (plan, task, generation)
        logger.info("training \(plan.id) started on \(machine)")
    }

    /// Stops the program on `machine`; returns the training it was running.
    @discardableResult
    package func stop(on machine: String) -> String? {
        guard let program = programs.removeValue(forKey: machine.uppercased()) else { return nil }
        program.task.cancel()
        logger.info("training \(program.plan.id) stopped on \(machine)")
        return program.plan.id
    }

    /// The training running on `machine`, by id.
    package func active(on machine: String) -> String? {
        programs[machine.uppercased()]?.plan.id
    }

    package func stopAll() {
        for program in programs.values { program.task.cancel() }
        programs.removeAll()
    }

    private func finished(_ key: String, generation: Int) {
        if programs[key]?.generation == generation { programs[key] = nil }
    }

    private static func execute(
        _ plan: TrainingPlan, machine: String, send: Send, report: Report, logger: Logger, retryInterval: Duration,
        timers: any Clock<Duration>
    ) async {
        let clock = ContinuousClock()
        let started = clock.now
        for change in plan.schedule() {
            do {
                try await timers.sleep(for: clock.now.duration(to: started + change.at))
            } catch {
                return
            }
            guard let target = change.target else { continue }
            let command: MachineCommand = switch target {
            case .resistance(let level): .resistance(level)
            case .power(let watts): .power(watts: watts)
            }
            let until = started + (plan.nextChange(after: change.at)?.at ?? plan.duration)
            while !Task.isCancelled {
                do {
                    let outcome = try await send(command, machine)
                    await report(machine, plan, command, .success(outcome))
                    break
                } catch {
                    await report(machine, plan, command, .failure(error))
                    logger.warning("training \(plan.id) on \(machine): \(command.operation) failed: \(error)")
                    guard clock.now + retryInterval < until else { break }
                    try? await timers.sleep(for: retryInterval)
                }
            }
        }
        try? await timers.sleep(for: clock.now.duration(to: started + plan.duration))
        if !Task.isCancelled { logger.info("training \(plan.id) on \(machine) completed") }
    }
}
