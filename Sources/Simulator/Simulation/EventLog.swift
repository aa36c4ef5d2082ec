/// One line per event, stamped with seconds since the simulator started.
public struct EventLog: Sendable {
    private let sink: @Sendable (String) -> Void
    private let start: ContinuousClock.Instant

    public init(start: ContinuousClock.Instant = .now, _ sink: @escaping @Sendable (String) -> Void) {
        self.sink = sink
        self.start = start
    }

    public static let silent = EventLog { _ in }

    func callAsFunction(_ line: String) {
        let elapsed = (ContinuousClock.now - start).milliseconds
        let fraction = String(elapsed % 1000)
        sink("\(elapsed / 1000).\(String(repeating: "0", count: 3 - fraction.count))\(fraction) \(line)")
    }
}
