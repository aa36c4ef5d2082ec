import ReferenceBackend
import Synchronization

/// A clock the test moves by hand, so token expiry is tested without sleeping.
final class ManualClock: BackendClock {
    private let seconds: Mutex<Double>

    init(_ start: Double = 1_766_563_200) {  // 2025-12-24T08:00:00Z
        seconds = Mutex(start)
    }

    func now() -> Double {
        seconds.withLock { $0 }
    }

    func advance(_ interval: Double) {
        seconds.withLock { $0 += interval }
    }
}
