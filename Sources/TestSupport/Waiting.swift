/// The tests' one way to wait: for a value or a condition, polled, instead of sleeping a fixed
/// time. The tests run on a loaded 2-core CI machine, where any fixed sleep is either too short
/// or wasted. A timeout here is a hang detector, not a bound on how fast the code is: generous
/// (a minute unless the test says otherwise), since waiting long costs only a failing test.
/// Polling sleeps between tries; it never holds a thread of the cooperative pool.
///
/// The condition is asked once more after the deadline has passed, before giving up: on a
/// loaded machine the waiting task itself can be resumed late, well past its deadline, and
/// what it waited for has usually happened meanwhile.
///
/// `value` returns nil while there is nothing yet. Give its type when the value is itself
/// optional (`{ () -> Int32? in … }`), or `Value` is inferred as the optional and the first nil
/// counts as found.
public func waitFor<Value>(
    _ what: String, timeout: Duration = .seconds(60), every interval: Duration = .milliseconds(10),
    _ value: () async throws -> Value?
) async throws -> Value {
    let deadline = ContinuousClock.now + timeout
    while true {
        if let found = try await value() { return found }
        guard ContinuousClock.now < deadline else { throw TimedOut(what: what) }
        try await Task.sleep(for: interval)
    }
}

/// Waits until `condition` holds; throws ``TimedOut``, in the test's own words, if it never does.
public func waitUntil(_ what: String, timeout: Duration = .seconds(60), _ condition: () async -> Bool) async throws {
    _ = try await waitFor(what, timeout: timeout) { await condition() ? () : nil }
}

/// Whether `condition` comes to hold within `timeout`, for `#expect(try await eventually { … })`.
public func eventually(_ timeout: Duration = .seconds(60), _ condition: () async throws -> Bool) async throws -> Bool {
    do {
        _ = try await waitFor("the condition", timeout: timeout) { try await condition() ? () : nil }
        return true
    } catch is TimedOut {
        return false
    }
}

/// What the waiters throw: the test's own words for what never happened.
public struct TimedOut: Error, CustomStringConvertible {
    public let what: String

    public init(what: String) {
        self.what = what
    }

    public var description: String { "timed out waiting for \(what)" }
}
