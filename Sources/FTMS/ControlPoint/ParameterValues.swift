/// The raw parameters of a Control Point request, a response or a Status event.
///
/// FTMS parameters are at most five uint16 (the five heart-rate zones), so they fit inline.
public struct ParameterValues: Sendable, Equatable {
    @usableFromInline var storage: InlineArray<5, Int32> = .init(repeating: 0)
    public private(set) var count: Int = 0

    public init() {}

    public init(_ raws: [Int32]) {
        for raw in raws.prefix(5) { append(raw) }
    }

    public subscript(index: Int) -> Int32? {
        index >= 0 && index < count ? storage[index] : nil
    }

    public mutating func append(_ raw: Int32) {
        guard count < 5 else { return }
        storage[count] = raw
        count += 1
    }

    public var raws: [Int32] { (0..<count).map { storage[$0] } }

    public static func == (lhs: ParameterValues, rhs: ParameterValues) -> Bool {
        lhs.raws == rhs.raws
    }
}
