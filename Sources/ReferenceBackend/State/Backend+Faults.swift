/// The fault rules and the per-route counts, as the routes see them.
extension Backend {
    /// Decides a call's faults as it arrives, and counts the ones that fire.
    func faults(for route: RouteName) -> RequestFaults {
        let plan = faults.plan(for: route)
        if plan.latencyMilliseconds > 0 { counters.faults[FaultRule.Kind.latency.rawValue, default: 0] += 1 }
        if let rejection = plan.rejection {
            counters.faults[(rejection.statusCode == 429 ? FaultRule.Kind.rateLimit : .serverError).rawValue, default: 0] += 1
        }
        if plan.timeout != nil { counters.faults[FaultRule.Kind.timeout.rawValue, default: 0] += 1 }
        return plan
    }

    /// `outcome` is the status code, or `dropped` for a connection closed by a timeout fault.
    func record(_ route: RouteName, outcome: String) {
        counters.record(route, outcome: outcome)
    }

    func addFaults(_ rules: [FaultRule], replacing: Bool) -> [FaultBoard.Entry] {
        if replacing { faults = FaultBoard(rules: []) }
        faults.add(rules)
        return faults.entries
    }

    func clearFaults() {
        faults = FaultBoard(rules: [])
    }

    var faultEntries: [FaultBoard.Entry] { faults.entries }
}
