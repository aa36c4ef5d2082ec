/// A wake-up for one waiter at a time that is not lost when nobody waits: the fleet's "something
/// discovery depends on changed" and "the machine settings changed, start again".
///
/// One enum instead of a flag beside an optional continuation, so "raised with a waiter still
/// parked" cannot be written. Transitions return the continuation to resume, which the caller
/// resumes (never from inside a mutation).
enum WakeSignal {
    case quiet
    /// Raised and not yet taken.
    case raised
    /// A waiter is parked until the next ``raise()`` or ``release()``.
    case awaited(CheckedContinuation<Void, Never>)

    /// Raises the signal; returns the parked waiter to resume, if any. It stays raised until
    /// ``take()``.
    mutating func raise() -> CheckedContinuation<Void, Never>? {
        let waiter = if case .awaited(let continuation) = self { continuation } else { nil as CheckedContinuation<Void, Never>? }
        self = .raised
        return waiter
    }

    /// Parks `continuation` unless the signal is already raised; returns a continuation to
    /// resume at once: `continuation` itself when raised, or a waiter it displaced (one waiter at
    /// a time: the fleet never parks two, and a displaced one just looks again).
    mutating func wait(_ continuation: CheckedContinuation<Void, Never>) -> CheckedContinuation<Void, Never>? {
        switch self {
        case .raised:
            return continuation
        case .quiet:
            self = .awaited(continuation)
            return nil
        case .awaited(let displaced):
            self = .awaited(continuation)
            return displaced
        }
    }

    /// The waiter gives up (cancelled, or another wake-up came first): returns it to resume;
    /// the signal is left as it was otherwise.
    mutating func release() -> CheckedContinuation<Void, Never>? {
        guard case .awaited(let continuation) = self else { return nil }
        self = .quiet
        return continuation
    }

    /// Whether the signal was raised; lowers it.
    mutating func take() -> Bool {
        guard case .raised = self else { return false }
        self = .quiet
        return true
    }
}
