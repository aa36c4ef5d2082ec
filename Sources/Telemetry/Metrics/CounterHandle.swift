import Prometheus

/// One series of a labelled counter, resolved once and kept by a caller that counts often
/// (``DaemonMetrics/notificationCounter(characteristic:)``): incrementing it is one atomic add,
/// with no label to build, bound or look up.
package struct CounterHandle: Sendable {
    private let counter: Counter?

    init(_ counter: Counter?) {
        self.counter = counter
    }

    package func increment() {
        counter?.increment()
    }
}
