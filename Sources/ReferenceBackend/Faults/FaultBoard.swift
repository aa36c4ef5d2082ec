/// The active fault rules and what each has seen and done.
struct FaultBoard: Sendable {
    struct Entry: Sendable {
        let rule: FaultRule
        /// Events matched so far.
        var seen = 0
        /// Times fired so far.
        var fired = 0

        var exhausted: Bool {
            rule.next.map { fired >= $0 } ?? false
        }

        /// Counts one matching event and says whether the rule fires on it.
        mutating func count() -> Bool {
            seen += 1
            guard !exhausted else { return false }
            let position = seen - rule.after
            guard position > 0, position % (rule.every ?? 1) == 0 else { return false }
            fired += 1
            return true
        }
    }

    private(set) var entries: [Entry]

    init(rules: [FaultRule]) {
        entries = rules.map { Entry(rule: $0) }
    }

    mutating func add(_ rules: [FaultRule]) {
        entries += rules.map { Entry(rule: $0) }
    }

    /// Every rule of `kind` that applies to `route` counts the event; the first that fires is
    /// returned.
    mutating func fire(_ kind: FaultRule.Kind, on route: RouteName) -> FaultRule? {
        var fired: FaultRule?
        for index in entries.indices where entries[index].rule.kind == kind && entries[index].rule.applies(to: route) {
            if entries[index].count(), fired == nil {
                fired = entries[index].rule
            }
        }
        return fired
    }

    /// The faults for one call, decided when it arrives.
    mutating func plan(for route: RouteName) -> RequestFaults {
        let latency = fire(.latency, on: route)?.milliseconds ?? 0
        var rejection: BackendRefusal?
        if let rule = fire(.serverError, on: route) {
            rejection = BackendRefusal(status: rule.status, code: "server_error", message: "injected fault (\(rule.spec))", retryAfter: rule.retryAfter)
        } else if let rule = fire(.rateLimit, on: route) {
            rejection = BackendRefusal(status: 429, code: "rate_limited", message: "injected fault (\(rule.spec))", retryAfter: rule.retryAfter ?? 1)
        }
        // A refused call does no work, so there is nothing to commit and then time out on.
        let timeout = rejection == nil ? fire(.timeout, on: route) : nil
        return RequestFaults(latencyMilliseconds: latency, rejection: rejection, timeout: timeout)
    }
}

/// What the fault rules decided for one call.
struct RequestFaults: Sendable {
    var latencyMilliseconds = 0
    /// Answer this instead of handling the call.
    var rejection: BackendRefusal?
    /// Handle and commit, then drop or stall the answer.
    var timeout: FaultRule?
}
