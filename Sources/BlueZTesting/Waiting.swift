/// Waits for a condition instead of sleeping a fixed time: the tests run on a loaded 2-core CI
/// machine, where any fixed sleep is either too short or wasted. Polls every 10 ms.
///
/// The condition is asked once more after the deadline has passed, before giving up: on a
/// loaded machine the waiting task itself can be resumed late, well past its deadline, and
/// what it waited for has usually happened meanwhile.
public func waitUntil(_ what: String, timeout: Duration = .seconds(20), _ condition: () async -> Bool) async throws {
    let deadline = ContinuousClock.now + timeout
    while true {
        if await condition() { return }
        guard ContinuousClock.now < deadline else { throw TimedOut(what: what) }
        try await Task.sleep(for: .milliseconds(10))
    }
}

/// What ``waitUntil(_:timeout:_:)`` throws: the test's own words for what never happened.
public struct TimedOut: Error, CustomStringConvertible {
    public let what: String

    public init(what: String) {
        self.what = what
    }

    public var description: String { "timed out waiting for \(what)" }
}
