import Testing
import Training

/// Bad bodies: each refused with one line that names the training and stage.
@Suite("Training errors")
struct TrainingErrorTests {
    static func failure(_ body: String) -> TrainingError? {
        do {
            _ = try TrainingPlan.plans(fromTrainingsBody: body)
            return nil
        } catch {
            return error
        }
    }

    static func stage(_ stage: String) -> String {
        #"[{"id": "ok", "stages": []}, {"id": "tr-x", "stages": [{"start": 0, "duration": 10, "target_power_w": 1}, \#(stage)]}]"#
    }

    @Test(arguments: [
        ("{", TrainingError.notJSON),
        ("", TrainingError.notJSON),
        (#"{"foo": 1}"#, TrainingError.notAList),
        ("42", TrainingError.notAList),
        (#"[{"id": "a"}, 7]"#, TrainingError.badTraining(index: 1, id: nil, problem: "not an object")),
        (#"[{"title": "no id"}]"#, TrainingError.badTraining(index: 0, id: nil, problem: "no id (a non-empty string)")),
        (#"[{"id": 12}]"#, TrainingError.badTraining(index: 0, id: nil, problem: "no id (a non-empty string)")),
        (#"[{"id": "a", "title": 5}]"#, TrainingError.badTraining(index: 0, id: "a", problem: "title is not a string")),
        (#"[{"id": "a", "stages": {}}]"#, TrainingError.badTraining(index: 0, id: "a", problem: "stages is not a list")),
        (#"[{"id": "a", "duration": "60"}]"#, TrainingError.badTraining(index: 0, id: "a", problem: "duration is not a number")),
        (#"[{"id": "a", "duration": -1}]"#, TrainingError.badTraining(index: 0, id: "a", problem: "duration -1.0 is not a finite number ≥ 0")),
        (#"[{"id": "a", "duration": 90000}]"#, TrainingError.badTraining(index: 0, id: "a", problem: "duration 90000.0 s is longer than 86400 s")),
        (#"[{"id": "a"}, {"id": "a"}]"#, TrainingError.duplicateID("a")),
    ])
    func trainingLevelErrors(body: String, expected: TrainingError) {
        #expect(Self.failure(body) == expected)
    }

    @Test(arguments: [
        (#"{"start": -5, "duration": 10}"#, "start -5.0 is not a finite number ≥ 0"),
        (#"{"start": 1e999, "duration": 10}"#, "start is missing or not a number"),
        (#"{"start": "300", "duration": 10}"#, "start is missing or not a number"),
        (#"{"duration": 10}"#, "start is missing or not a number"),
        (#"{"start": 0}"#, "duration is missing or not a number"),
        (#"{"start": 0, "duration": -0.5}"#, "duration -0.5 is not a finite number ≥ 0"),
        (#"{"start": 86000, "duration": 1000}"#, "ends after 86400 s"),
        (#"{"start": 0, "duration": 10, "target_power_w": 100, "target_resistance_level": 3}"#, "sets both target_resistance_level and target_power_w"),
        (#"{"start": 0, "duration": 10, "target_power_w": 150.5}"#, "target_power_w 150.5 is not a whole number of watts in 0…32767"),
        (#"{"start": 0, "duration": 10, "target_power_w": -1}"#, "target_power_w -1.0 is not a whole number of watts in 0…32767"),
        (#"{"start": 0, "duration": 10, "target_resistance_level": -2}"#, "target_resistance_level -2.0 is outside 0.0…3276.7"),
        (#"{"start": 0, "duration": 10, "target_resistance_level": "5"}"#, "target_resistance_level is not a number"),
        ("[]", "not an object"),
    ])
    func stageErrorsNameTheTrainingAndStage(stage: String, problem: String) {
        let error = Self.failure(Self.stage(stage))
        #expect(error == .badStage(trainingID: "tr-x", stage: 1, problem: problem))
        #expect(error?.description == "training tr-x, stage 1: \(problem)")
    }

    @Test func aStageAfterTheEndIsRefused() {
        let body = #"[{"id": "a", "duration": 60, "stages": [{"start": 60, "duration": 10, "target_power_w": 1}]}]"#
        #expect(Self.failure(body) == .badStage(trainingID: "a", stage: 0, problem: "starts at 60 s, at or after the training's end (60 s)"))
    }

    @Test func tooManyStagesIsRefused() {
        let stages = Array(repeating: #"{"start": 0, "duration": 1}"#, count: TrainingPlan.maximumStages + 1).joined(separator: ",")
        #expect(Self.failure(#"[{"id": "big", "stages": [\#(stages)]}]"#) == .badTraining(index: 0, id: "big", problem: "more than 1000 stages"))
    }

    @Test func oneTrainingIsReadDespiteAnothersProblem() throws {
        let body = Self.stage(#"{"start": -1, "duration": 1}"#)
        #expect(try TrainingPlan.plan(id: "ok", fromTrainingsBody: body).id == "ok")
        #expect(throws: TrainingError.badStage(trainingID: "tr-x", stage: 1, problem: "start -1.0 is not a finite number ≥ 0")) {
            try TrainingPlan.plan(id: "tr-x", fromTrainingsBody: body)
        }
        #expect(throws: TrainingError.unknownTraining("nope")) { try TrainingPlan.plan(id: "nope", fromTrainingsBody: body) }
    }

    @Test func descriptionsAreOneLine() {
        let errors: [TrainingError] = [
            .notJSON, .notAList, .badTraining(index: 3, id: "x", problem: "p"), .badTraining(index: 3, id: nil, problem: "p"),
            .badStage(trainingID: "x", stage: 2, problem: "p"), .duplicateID("x"), .unknownTraining("x"),
        ]
        #expect(errors.allSatisfy { !$0.description.isEmpty && !$0.description.contains("\n") })
        #expect(TrainingError.badTraining(index: 3, id: "x", problem: "p").description == "training x (#3): p")
    }
}
