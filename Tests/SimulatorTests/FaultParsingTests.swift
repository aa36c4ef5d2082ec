import Simulator
import Testing

@Suite("Fault flags")
struct FaultParsingTests {
    @Test func knownFaultsRoundTrip() throws {
        let cases: [(String, Fault)] = [
            ("connect-abort", .connectAbort(times: 1)), ("connect-abort=3", .connectAbort(times: 3)),
            ("connect-hang=1", .connectHang(times: 1)), ("no-resolve", .noResolve(times: 1)),
            ("early-resolve=2", .earlyResolve(times: 2)), ("link-drop=10", .linkDrop(afterFrames: 10)),
            ("lose-control=5", .loseControl(afterFrames: 5)),
            ("restart=2000", .restart(after: .milliseconds(2000), down: .milliseconds(500))),
            ("restart=100:50", .restart(after: .milliseconds(100), down: .milliseconds(50))),
            ("power-cycle=10:20", .powerCycle(after: .milliseconds(10), off: .milliseconds(20))),
            ("discovery-fails=2", .discoveryFailures(2)), ("deaf-discovery=1", .deafDiscovery(1)), ("bad-types", .badTypes),
            ("cp-result=4:4", .controlPointResult(opCode: 4, result: 4)),
            ("cp-result=0x05:0x03", .controlPointResult(opCode: 5, result: 3)),
            ("switch-on=5000", .switchOn(after: .milliseconds(5000))),
            ("sleep=100:200", .sleep(after: .milliseconds(100), asleep: .milliseconds(200))),
            ("sleep=100", .sleep(after: .milliseconds(100), asleep: .seconds(600))),
            ("notify-uaf", .notifyUseAfterFree(hangUp: .milliseconds(300))),
            ("notify-uaf=0", .notifyUseAfterFree(hangUp: .zero)), ("notify-uaf=50", .notifyUseAfterFree(hangUp: .milliseconds(50))),
        ]
        for (text, fault) in cases {
            #expect(try Fault(parsing: text) == fault, "\(text)")
            #expect(try Fault(parsing: fault.description) == fault)
        }
    }

    @Test func badFaultsAreOneLineErrors() {
        for text in ["", "explode", "link-drop", "link-drop=x", "link-drop=-1", "restart", "restart=1:2:3", "restart=a",
                     "bad-types=1", "cp-result=4", "cp-result=300:1", "power-cycle=:5", "switch-on", "switch-on=1:2",
                     "sleep", "sleep=x:1", "notify-uaf=x", "notify-uaf=-1", "notify-uaf=1:2"] {
            #expect(throws: SimulatorError.self, "\(text)") { try Fault(parsing: text) }
            do {
                _ = try Fault(parsing: text)
            } catch {
                #expect(!error.description.contains("\n") && !error.description.isEmpty)
            }
        }
    }
}
