import FoundationEssentials

extension TrainingPlan {
    /// The longest training and the latest stage boundary accepted: a day. Anything longer is
    /// a unit mistake (milliseconds sent as seconds), not a workout.
    package static let maximumDuration = Duration.seconds(86_400)
    /// More stages than this is not a course a person rides; the bound keeps ``schedule()``
    /// cheap whatever the backend sends.
    package static let maximumStages = 1_000
    /// The bounds of the Control Point's fields (sint16, resistance at 0.1).
    package static let resistanceRange: ClosedRange<Double> = 0...3276.7
    package static let powerRange: ClosedRange<Int> = 0...32767

    /// Every training in a cached `GET /trainings` body: the bare list the store keeps, or the
    /// `{"trainings": [...]}` object the backend answers. One bad training makes it all fail,
    /// naming the training and stage; ``plan(id:fromTrainingsBody:)`` reads one training
    /// without being stopped by another's problem.
    package static func plans(fromTrainingsBody body: String) throws(TrainingError) -> [TrainingPlan] {
        var seen: Set<String> = []
        var plans: [TrainingPlan] = []
        for (index, record) in try records(in: body).enumerated() {
            let plan = try plan(from: record, index: index)
            guard seen.insert(plan.id).inserted else { throw .duplicateID(plan.id) }
            plans.append(plan)
        }
        return plans
    }

    /// The training with id `id` in a cached body, checked on its own: a problem in another
    /// training does not stop this one from running.
    package static func plan(id: String, fromTrainingsBody body: String) throws(TrainingError) -> TrainingPlan {
        let matches = try records(in: body).enumerated().filter { $0.element.id.value == id }
        guard let match = matches.first else { throw .unknownTraining(id) }
        guard matches.count == 1 else { throw .duplicateID(id) }
        return try plan(from: match.element, index: match.offset)
    }

    private static func records(in body: String) throws(TrainingError) -> [TrainingRecord] {
        let data = Data(body.utf8)
        let decoder = JSONDecoder()
        if let list = try? decoder.decode([TrainingRecord].self, from: data) { return list }
        if let envelope = try? decoder.decode(TrainingListEnvelope.self, from: data) { return envelope.trainings }
        guard (try? decoder.decode(AnyJSON.self, from: data)) != nil else { throw .notJSON }
        throw .notAList
    }

    private static func plan(from record: TrainingRecord, index: Int) throws(TrainingError) -> TrainingPlan {
        guard record.isObject else { throw .badTraining(index: index, id: nil, problem: "not an object") }
        guard let id = record.id.value, !id.isEmpty else {
            throw .badTraining(index: index, id: nil, problem: "no id (a non-empty string)")
        }
        func problem(_ text: String) -> TrainingError { .badTraining(index: index, id: id, problem: text) }
        if case .wrongType = record.title { throw problem("title is not a string") }
        if case .wrongType = record.machineType { throw problem("machine_type is not a string") }
        let stageRecords: [StageRecord]
        switch record.stages {
        case .absent: stageRecords = []
        case .wrongType: throw problem("stages is not a list")
        case .value(let list): stageRecords = list
        }
        guard stageRecords.count <= maximumStages else { throw problem("more than \(maximumStages) stages") }
        var stages: [TrainingStage] = []
        for (number, stageRecord) in stageRecords.enumerated() {
            do {
                stages.append(try stage(from: stageRecord))
            } catch {
                throw .badStage(trainingID: id, stage: number, problem: error.problem)
            }
        }
        let duration: Duration
        switch record.duration {
        case .absent: duration = stages.map(\.end).max() ?? .zero
        case .wrongType: throw problem("duration is not a number")
        case .value(let seconds):
            do {
                duration = try Self.duration(seconds, "duration")
            } catch {
                throw problem(error.problem)
            }
        }
        for (number, stage) in stages.enumerated() where stage.start >= duration && stage.duration > .zero {
            throw .badStage(
                trainingID: id, stage: number,
                problem: "starts at \(stage.start.components.seconds) s, at or after the training's end (\(duration.components.seconds) s)")
        }
        return TrainingPlan(id: id, title: record.title.value, machineType: record.machineType.value, duration: duration, stages: stages)
    }

    private static func stage(from record: StageRecord) throws(StageProblem) -> TrainingStage {
        guard record.isObject else { throw StageProblem("not an object") }
        guard case .value(let startSeconds) = record.start else { throw StageProblem("start is missing or not a number") }
        guard case .value(let durationSeconds) = record.duration else { throw StageProblem("duration is missing or not a number") }
        let start = try duration(startSeconds, "start")
        let length = try duration(durationSeconds, "duration")
        guard start + length <= maximumDuration else { throw StageProblem("ends after \(maximumDuration.components.seconds) s") }
        if case .wrongType = record.resistance { throw StageProblem("target_resistance_level is not a number") }
        if case .wrongType = record.power { throw StageProblem("target_power_w is not a number") }
        switch (record.resistance.value, record.power.value) {
        case (.some, .some):
            throw StageProblem("sets both target_resistance_level and target_power_w")
        case (.some(let level), nil):
            guard level.isFinite, resistanceRange.contains(level) else {
                throw StageProblem("target_resistance_level \(level) is outside \(resistanceRange.lowerBound)…\(resistanceRange.upperBound)")
            }
            return TrainingStage(start: start, duration: length, target: .resistance(level))
        case (nil, .some(let watts)):
            guard watts.isFinite, watts.rounded() == watts, watts >= Double(powerRange.lowerBound), watts <= Double(powerRange.upperBound) else {
                throw StageProblem("target_power_w \(watts) is not a whole number of watts in \(powerRange.lowerBound)…\(powerRange.upperBound)")
            }
            return TrainingStage(start: start, duration: length, target: .power(Int(watts)))
        case (nil, nil):
            return TrainingStage(start: start, duration: length, target: nil)
        }
    }

    /// Seconds as the backend sends them (whole or not) at millisecond resolution, refused when
    /// negative, not finite or longer than a day.
    private static func duration(_ seconds: Double, _ name: String) throws(StageProblem) -> Duration {
        guard seconds.isFinite, seconds >= 0 else { throw StageProblem("\(name) \(seconds) is not a finite number ≥ 0") }
        guard seconds <= Double(maximumDuration.components.seconds) else {
            throw StageProblem("\(name) \(seconds) s is longer than \(maximumDuration.components.seconds) s")
        }
        return .milliseconds(Int64((seconds * 1000).rounded()))
    }
}

/// What is wrong with one field or stage, before it is known which training it belongs to.
private struct StageProblem: Error {
    var problem: String
    init(_ problem: String) { self.problem = problem }
}
