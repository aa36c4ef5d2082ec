import Testing
import Training

/// The documented rule for overlaps, gaps, ties and the end (``TrainingPlan``).
@Suite("Stage rules")
struct StageRuleTests {
    static func plan(_ stages: String, duration: String? = nil) throws -> TrainingPlan {
        let durationField = duration.map { #", "duration": \#($0)"# } ?? ""
        return try TrainingPlan.plan(id: "t", fromTrainingsBody: #"[{"id": "t"\#(durationField), "stages": [\#(stages)]}]"#)
    }

    @Test func aLaterStageInsideAnEarlierOneWinsThenTheEarlierResumes() throws {
        let plan = try Self.plan(#"""
            {"start": 0, "duration": 600, "target_resistance_level": 3},
            {"start": 100, "duration": 100, "target_power_w": 250}
            """#)
        #expect(plan.target(atElapsed: .seconds(99)) == .resistance(3))
        #expect(plan.target(atElapsed: .seconds(150)) == .power(250))
        #expect(plan.target(atElapsed: .seconds(200)) == .resistance(3))
        #expect(plan.schedule() == [
            TrainingChange(at: .zero, target: .resistance(3)),
            TrainingChange(at: .seconds(100), target: .power(250)),
            TrainingChange(at: .seconds(200), target: .resistance(3)),
        ])
        #expect(plan.duration == .seconds(600))
    }

    @Test func gapsSetNothing() throws {
        let plan = try Self.plan(#"""
            {"start": 200, "duration": 100, "target_resistance_level": 5},
            {"start": 0, "duration": 100, "target_resistance_level": 3}
            """#, duration: "400")
        #expect(plan.stages.map(\.start) == [.zero, .seconds(200)])
        #expect(plan.target(atElapsed: .seconds(150)) == nil)
        #expect(plan.target(atElapsed: .seconds(350)) == nil)
        #expect(plan.schedule() == [
            TrainingChange(at: .zero, target: .resistance(3)),
            TrainingChange(at: .seconds(100), target: nil),
            TrainingChange(at: .seconds(200), target: .resistance(5)),
            TrainingChange(at: .seconds(300), target: nil),
        ])
        #expect(!plan.isFinished(atElapsed: .seconds(399)))
    }

    @Test func aLeadingGapStartsTheScheduleWithNothing() throws {
        let plan = try Self.plan(#"{"start": 30, "duration": 30, "target_power_w": 90}"#)
        #expect(plan.schedule() == [TrainingChange(at: .zero, target: nil), TrainingChange(at: .seconds(30), target: .power(90))])
        #expect(plan.duration == .seconds(60))
    }

    @Test func ofStagesStartingTogetherTheLaterListedWins() throws {
        let plan = try Self.plan(#"""
            {"start": 0, "duration": 100, "target_power_w": 100},
            {"start": 0, "duration": 50, "target_power_w": 200}
            """#)
        #expect(plan.target(atElapsed: .seconds(10)) == .power(200))
        #expect(plan.target(atElapsed: .seconds(60)) == .power(100))
    }

    @Test func adjacentStagesWithTheSameTargetMakeOneChange() throws {
        let plan = try Self.plan(#"""
            {"start": 0, "duration": 60, "target_power_w": 150},
            {"start": 60, "duration": 60, "target_power_w": 150},
            {"start": 120, "duration": 60, "target_power_w": 160}
            """#)
        #expect(plan.schedule() == [TrainingChange(at: .zero, target: .power(150)), TrainingChange(at: .seconds(120), target: .power(160))])
    }

    @Test func aShortDurationCutsTheLastStage() throws {
        let plan = try Self.plan(#"{"start": 0, "duration": 600, "target_resistance_level": 4}"#, duration: "300")
        #expect(plan.target(atElapsed: .seconds(299)) == .resistance(4))
        #expect(plan.target(atElapsed: .seconds(300)) == nil)
        #expect(plan.isFinished(atElapsed: .seconds(300)))
    }

    @Test func fractionalSecondsAreKeptToTheMillisecond() throws {
        let plan = try Self.plan(#"{"start": 0.25, "duration": 1.5, "target_resistance_level": 2.5}"#)
        #expect(plan.stages == [TrainingStage(start: .milliseconds(250), duration: .milliseconds(1500), target: .resistance(2.5))])
        #expect(plan.duration == .milliseconds(1750))
    }

    @Test func unknownFieldsNullTargetsAndUnknownTargetKindsAreTolerated() throws {
        let plan = try Self.plan(#"""
            {"start": 0, "duration": 60, "target_power_w": null, "target_resistance_level": 2, "note": "warm up"},
            {"start": 60, "duration": 60, "target_cadence_rpm": 90}
            """#)
        #expect(plan.stages.map(\.target) == [.resistance(2), nil])
        #expect(plan.title == nil)
        #expect(plan.machineType == nil)
    }

    @Test func aTrainingWithoutStagesLastsItsDurationAndSetsNothing() throws {
        let plan = try TrainingPlan.plan(id: "video", fromTrainingsBody: #"[{"id": "video", "duration": 120}]"#)
        #expect(plan.stages.isEmpty)
        #expect(plan.schedule() == [TrainingChange(at: .zero, target: nil)])
        #expect(plan.duration == .seconds(120))
    }

    @Test func aPlanThatLastsNoTimeHasNoSchedule() throws {
        let plan = try TrainingPlan.plan(id: "empty", fromTrainingsBody: #"[{"id": "empty"}]"#)
        #expect(plan.schedule().isEmpty)
        #expect(plan.isFinished(atElapsed: .zero))
    }

    @Test func theInitialiserSortsStagesStably() {
        let stages = [
            TrainingStage(start: .seconds(10), duration: .seconds(5), target: .power(1)),
            TrainingStage(start: .zero, duration: .seconds(5), target: .power(2)),
            TrainingStage(start: .seconds(10), duration: .seconds(5), target: .power(3)),
        ]
        let plan = TrainingPlan(id: "x", duration: .seconds(15), stages: stages)
        #expect(plan.stages.map(\.target) == [.power(2), .power(1), .power(3)])
        #expect(plan.target(atElapsed: .seconds(12)) == .power(3))
    }
}
