import FTMS

/// The bytes of one attribute value, kept inline when they are short.
///
/// FTMS frames are at most about 30 bytes, so storing up to ``inlineCapacity`` bytes inside
/// the value means a reader hands out millions of events without a heap allocation each;
/// longer values (ATT allows 512) spill to an array.
public struct AttributeValue: Sendable, RandomAccessCollection, Equatable, Hashable, ExpressibleByArrayLiteral,
    CustomStringConvertible
{
    public static let inlineCapacity = 32

    private var small = InlineArray<32, UInt8>(repeating: 0)
    private var large: [UInt8] = []
    public let count: Int

    public init(_ bytes: UnsafeRawBufferPointer) {
        count = bytes.count
        if count <= Self.inlineCapacity {
            withUnsafeMutableBytes(of: &small) { storage in
                if count > 0 { storage.copyMemory(from: bytes) }
            }
        } else {
            large = Array(bytes)
        }
    }

    public init(_ bytes: some Sequence<UInt8>) {
        let array = Array(bytes)
        self = array.withUnsafeBytes { AttributeValue($0) }
    }

    public init(arrayLiteral elements: UInt8...) {
        self.init(elements)
    }

    public var startIndex: Int { 0 }
    public var endIndex: Int { count }

    public subscript(position: Int) -> UInt8 {
        precondition(position >= 0 && position < count, "AttributeValue index out of range")
        return count <= Self.inlineCapacity ? small[position] : large[position]
    }

    /// The bytes, borrowed for the duration of `body`.
    public func withUnsafeBytes<Result>(_ body: (UnsafeRawBufferPointer) throws -> Result) rethrows -> Result {
        if count > Self.inlineCapacity { return try large.withUnsafeBytes(body) }
        return try Swift.withUnsafeBytes(of: small) { try body(UnsafeRawBufferPointer(rebasing: $0.prefix(count))) }
    }

    public static func == (lhs: AttributeValue, rhs: AttributeValue) -> Bool {
        lhs.count == rhs.count && lhs.elementsEqual(rhs)
    }

    public func hash(into hasher: inout Hasher) {
        withUnsafeBytes { hasher.combine(bytes: $0) }
    }

    /// Lowercase hex, as `.ftmscap` writes it.
    public var description: String { Hex.string(self) }
}
