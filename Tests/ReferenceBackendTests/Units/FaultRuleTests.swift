import JSON
import FoundationEssentials
import Testing
@testable import ReferenceBackend

@Suite("Fault rules: text form, JSON form, counting")
struct FaultRuleTests {
    @Test("text form: keys, defaults and the canonical spelling back")
    func textForm() throws {
        let rule = try FaultRule(spec: "5xx:route=batch_upload+sso,after=1,next=2,status=502")
        #expect(rule.kind == .serverError && rule.after == 1 && rule.next == 2 && rule.status == 502)
        #expect(rule.routes == [.batchUpload, .sso])
        #expect(rule.spec == "5xx:route=batch_upload+sso,after=1,next=2,status=502")
        #expect(try FaultRule(spec: rule.spec) == rule)
        #expect(try FaultRule(spec: "429").spec == "429:retry-after=1")
        #expect(try FaultRule(spec: "timeout:mode=sleep,seconds=2.5").seconds == 2.5)
        #expect(try FaultRule(spec: "invalid:every=3,error=bad_session").error == "bad_session")
        #expect(try FaultRule(spec: "latency:ms=5,retry_after=3").retryAfter == 3)
    }

    @Test(
        "bad rules are one-line errors",
        arguments: [
            ("boom", "unknown fault kind \"boom\" (one of 5xx, 429, timeout, invalid, latency)"),
            ("5xx:every=0", "every must be ≥ 1"),
            ("5xx:status=404", "status must be 500–599"),
            ("5xx:route=nowhere", "unknown route \"nowhere\" (one of sso, refresh, logout, batch_upload, upload, sessions, me, stats, patch_stats, trainings)"),
            ("5xx:next", "\"next\" is not key=value"),
            ("5xx:next=x", "next=x is not a whole number"),
            ("5xx:colour=red", "unknown fault key \"colour\""),
            ("timeout:mode=explode", "mode must be drop or sleep"),
            ("latency:ms=99999", "ms must be 0–60000"),
        ])
    func badRules(spec: String, message: String) {
        #expect(throws: FaultRule.Problem(message)) { try FaultRule(spec: spec) }
    }

    @Test("JSON form: an object with the same keys, or the text form")
    func jsonForm() throws {
        let object: JSONValue = ["kind": "429", "routes": ["refresh"], "next": 1, "retry_after": 4]
        let rule = try FaultRule(json: object)
        #expect(rule.routes == [.refresh] && rule.next == 1 && rule.retryAfter == 4)
        #expect(try FaultRule(json: "timeout:route=batch_upload") == FaultRule(spec: "timeout:route=batch_upload"))
        let decoded = try JSONDecoder().decode([FaultRule].self, from: Data(#"["5xx", {"kind": "invalid", "every": 2}]"#.utf8))
        #expect(decoded.map(\.kind) == [.serverError, .invalid])
        #expect(throws: FaultRule.Problem("a fault rule is a string or an object with a kind")) { try FaultRule(json: 5) }
    }

    @Test("after, every and next pick exactly the events they say")
    func counting() throws {
        func fired(_ spec: String, events: Int) throws -> [Int] {
            var board = FaultBoard(rules: [try FaultRule(spec: spec)])
            return (1...events).filter { _ in board.fire(.serverError, on: .sso) != nil }.map { $0 }
        }
        // `filter` runs the closure once per event in order, so the indexes are the firing events.
        #expect(try fired("5xx", events: 4) == [1, 2, 3, 4])
        #expect(try fired("5xx:every=3", events: 10) == [3, 6, 9])
        #expect(try fired("5xx:after=1,next=1", events: 5) == [2])
        #expect(try fired("5xx:after=2,every=2,next=2", events: 12) == [4, 6])
    }

    @Test("a rule watches only its routes; invalid defaults to the session routes")
    func routes() throws {
        var board = FaultBoard(rules: [try FaultRule(spec: "5xx:route=refresh"), try FaultRule(spec: "invalid")])
        #expect(board.fire(.serverError, on: .sso) == nil)
        #expect(board.fire(.serverError, on: .refresh) != nil)
        #expect(board.fire(.invalid, on: .batchUpload) != nil)
        #expect(board.fire(.invalid, on: .stats) == nil)
        #expect(board.entries.map(\.seen) == [1, 1])
    }

    @Test("a call's plan: a refusal wins over a timeout, and latency adds on")
    func plan() throws {
        var board = FaultBoard(rules: [
            try FaultRule(spec: "timeout:next=2"), try FaultRule(spec: "429:next=1,retry-after=7"), try FaultRule(spec: "latency:ms=3"),
        ])
        let first = board.plan(for: .batchUpload)
        #expect(first.rejection == BackendRefusal(status: 429, code: "rate_limited", message: "injected fault (429:next=1,retry-after=7)", retryAfter: 7))
        #expect(first.timeout == nil && first.latencyMilliseconds == 3)
        let second = board.plan(for: .batchUpload)
        #expect(second.rejection == nil && second.timeout?.kind == .timeout)
    }
}
