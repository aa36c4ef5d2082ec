import DeterministicRandom
import Testing
import Training

/// Random plans, written as the backend would and read back: at every moment the target is the
/// one the rule picks from the raw stages (an oracle written here from the rule, not from the
/// code), and the schedule agrees with it everywhere.
@Suite("Plan properties")
struct PlanPropertyTests {
    struct RawStage {
        var start: Int
        var duration: Int
        var target: TrainingTarget?
    }

    struct RandomPlan {
        var stages: [RawStage]
        var duration: Int?

        var json: String {
            let stageJSON = stages.map { stage -> String in
                var fields = [#""start": \#(stage.start)"#, #""duration": \#(stage.duration)"#]
                switch stage.target {
                case .resistance(let level): fields.append(#""target_resistance_level": \#(level)"#)
                case .power(let watts): fields.append(#""target_power_w": \#(watts)"#)
                case nil: break
                }
                return "{" + fields.joined(separator: ", ") + "}"
            }
            let durationField = duration.map { #""duration": \#($0), "# } ?? ""
            return #"[{"id": "random", \#(durationField)"stages": [\#(stageJSON.joined(separator: ", "))]}]"#
        }

        /// The rule, from the raw list: covering stages, latest start, later listed on a tie.
        func oracle(_ second: Double) -> TrainingTarget? {
            let end = duration ?? stages.map { $0.start + $0.duration }.max() ?? 0
            guard second >= 0, second < Double(end) else { return nil }
            var best: (start: Int, index: Int, target: TrainingTarget?)?
            for (index, stage) in stages.enumerated()
            where Double(stage.start) <= second && second < Double(stage.start + stage.duration) {
                if best.map({ stage.start >= $0.start }) ?? true { best = (stage.start, index, stage.target) }
            }
            return best?.target
        }
    }

    static func randomPlan(_ random: inout SplitMix64) -> RandomPlan {
        let count = Int(random.next() % 8)
        var stages: [RawStage] = []
        for _ in 0..<count {
            let target: TrainingTarget? = switch random.next() % 5 {
            case 0: nil
            case 1, 2: .resistance(Double(random.next() % 200) / 10)
            default: .power(Int(random.next() % 400))
            }
            stages.append(RawStage(start: Int(random.next() % 300), duration: Int(random.next() % 200), target: target))
        }
        let latestStart = stages.filter { $0.duration > 0 }.map(\.start).max() ?? -1
        let duration: Int? = random.next() % 2 == 0 ? nil : latestStart + 1 + Int(random.next() % 300)
        return RandomPlan(stages: stages, duration: duration)
    }

    @Test func theTargetAtAnyMomentIsTheCoveringStages() throws {
        var random = SplitMix64(seed: 0x5eed_0001)
        var checked = 0
        for _ in 0..<500 {
            let raw = Self.randomPlan(&random)
            let plan = try TrainingPlan.plan(id: "random", fromTrainingsBody: raw.json)
            for tenth in -5...6000 where tenth % 7 == 0 || tenth % 10 == 0 {
                let second = Double(tenth) / 10
                #expect(plan.target(atElapsed: .milliseconds(tenth * 100)) == raw.oracle(second), "\(raw.json) at \(second) s")
                checked += 1
            }
        }
        #expect(checked > 1_000_000 / 2)
    }

    @Test func theScheduleAgreesWithTheTargetEverywhere() throws {
        var random = SplitMix64(seed: 0x5eed_0002)
        for _ in 0..<500 {
            let raw = Self.randomPlan(&random)
            let plan = try TrainingPlan.plan(id: "random", fromTrainingsBody: raw.json)
            let schedule = plan.schedule()
            #expect(schedule.first?.at == (plan.duration > .zero ? .zero : nil))
            #expect(zip(schedule, schedule.dropFirst()).allSatisfy { $0.at < $1.at && $0.target != $1.target })
            #expect(schedule.allSatisfy { $0.at < plan.duration })
            for tenth in stride(from: 0, to: 6000, by: 5) {
                let moment = Duration.milliseconds(tenth * 100)
                let scheduled = plan.isFinished(atElapsed: moment) ? nil : schedule.last { $0.at <= moment }?.target
                #expect(plan.target(atElapsed: moment) == scheduled, "\(raw.json) at \(moment)")
            }
            for change in schedule {
                #expect(plan.nextChange(after: change.at - .milliseconds(1)) == change)
            }
        }
    }
}

