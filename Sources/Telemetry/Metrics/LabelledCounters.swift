import Prometheus

/// One counter family with a bounded label: every series made up front, looked up by value.
struct LabelledCounters: Sendable {
    private let label: LabelValues
    private let counters: [String: Counter]

    init(_ registry: PrometheusCollectorRegistry, _ name: String, _ help: String, _ label: LabelValues) {
        self.label = label
        let descriptor = MetricNameDescriptor(namespace: DaemonMetrics.namespace, metricName: name, unitName: "total", helpText: help)
        counters = Dictionary(uniqueKeysWithValues: label.values.map { value in
            (value, registry.makeCounter(descriptor: descriptor, labels: [(label.name, value)]))
        })
    }

    func increment(_ value: String, by amount: Int = 1) {
        guard amount > 0 else { return }
        counters[label.bounded(value)]?.increment(by: Int64(amount))
    }

    /// The series `value` counts under (`other` when it is not on the list).
    func counter(_ value: String) -> Counter? {
        counters[label.bounded(value)]
    }
}

/// A counter family with two bounded labels (command × result).
struct LabelPairCounters: Sendable {
    private let first: LabelValues
    private let second: LabelValues
    private let counters: [String: Counter]

    init(_ registry: PrometheusCollectorRegistry, _ name: String, _ help: String, _ first: LabelValues, _ second: LabelValues) {
        self.first = first
        self.second = second
        let descriptor = MetricNameDescriptor(namespace: DaemonMetrics.namespace, metricName: name, unitName: "total", helpText: help)
        var counters: [String: Counter] = [:]
        for a in first.values {
            for b in second.values {
                counters[Self.key(a, b)] = registry.makeCounter(descriptor: descriptor, labels: [(first.name, a), (second.name, b)])
            }
        }
        self.counters = counters
    }

    func increment(_ a: String, _ b: String) {
        counters[Self.key(first.bounded(a), second.bounded(b))]?.increment()
    }

    private static func key(_ a: String, _ b: String) -> String { a + "\u{0}" + b }
}
