import Testing
import Training

/// Known answers from the reference backend's default trainings.
@Suite("Default trainings")
struct DefaultTrainingsTests {
    static func plans() throws -> [TrainingPlan] {
        try TrainingPlan.plans(fromTrainingsBody: DefaultTrainingsFixture.list)
    }

    @Test func readsAllThreeWithTheirMetadata() throws {
        let plans = try Self.plans()
        #expect(plans.map(\.id) == ["tr-bike-easy-20", "tr-bike-intervals-30", "tr-rower-steady-15"])
        #expect(plans.map(\.title) == ["Easy Spin 20", "Power Intervals 30", "Steady Row 15"])
        #expect(plans.map(\.machineType) == ["bike", "bike", "rower"])
        #expect(plans.map(\.duration) == [.seconds(1200), .seconds(1800), .seconds(900)])
        #expect(plans.map(\.stages.count) == [3, 4, 1])
    }

    @Test func theBackendsEnvelopeGivesTheSamePlans() throws {
        #expect(try TrainingPlan.plans(fromTrainingsBody: DefaultTrainingsFixture.envelope) == Self.plans())
    }

    @Test func easySpinSchedule() throws {
        let plan = try TrainingPlan.plan(id: "tr-bike-easy-20", fromTrainingsBody: DefaultTrainingsFixture.list)
        #expect(plan.schedule() == [
            TrainingChange(at: .zero, target: .resistance(3)),
            TrainingChange(at: .seconds(300), target: .resistance(5)),
            TrainingChange(at: .seconds(900), target: .resistance(3)),
        ])
        #expect(plan.target(atElapsed: .milliseconds(299_999)) == .resistance(3))
        #expect(plan.target(atElapsed: .seconds(300)) == .resistance(5))
        #expect(plan.target(atElapsed: .milliseconds(1_199_999)) == .resistance(3))
        #expect(plan.target(atElapsed: .seconds(1200)) == nil)
        #expect(plan.target(atElapsed: .seconds(-1)) == nil)
        #expect(!plan.isFinished(atElapsed: .milliseconds(1_199_999)))
        #expect(plan.isFinished(atElapsed: .seconds(1200)))
        #expect(plan.nextChange(after: .seconds(300)) == TrainingChange(at: .seconds(900), target: .resistance(3)))
        #expect(plan.nextChange(after: .seconds(900)) == nil)
    }

    @Test func powerIntervalsSchedule() throws {
        let plan = try TrainingPlan.plan(id: "tr-bike-intervals-30", fromTrainingsBody: DefaultTrainingsFixture.envelope)
        #expect(plan.schedule() == [
            TrainingChange(at: .zero, target: .power(100)),
            TrainingChange(at: .seconds(360), target: .power(250)),
            TrainingChange(at: .seconds(480), target: .power(120)),
            TrainingChange(at: .seconds(600), target: .power(180)),
        ])
        #expect(plan.target(atElapsed: .seconds(479)) == .power(250))
        #expect(plan.target(atElapsed: .seconds(1799)) == .power(180))
        #expect(plan.isFinished(atElapsed: .seconds(1800)))
    }

    @Test func steadyRowSchedule() throws {
        let plan = try TrainingPlan.plan(id: "tr-rower-steady-15", fromTrainingsBody: DefaultTrainingsFixture.list)
        #expect(plan.schedule() == [TrainingChange(at: .zero, target: .resistance(6))])
        #expect(plan.target(atElapsed: .seconds(450)) == .resistance(6))
        #expect(plan.nextChange(after: .zero) == nil)
    }
}
