/// Everything the codec knows about one field: how it travels and what it means.
public struct FieldDescriptor: Sendable {
    /// The contract §3.1 JSON name, unit-suffixed. A `StaticString` so writing it never allocates.
    public let jsonName: StaticString
    public let format: WireFormat
    public let scale: Scale
    /// The raw value meaning "data not available". FTMS 1.0 defines one only for the energy
    /// fields (contract §3); every other field carries a value even when it is implausible.
    public let notAvailable: Int32?
    /// Raw values outside this range are still reported, but flagged `implausible`: they are
    /// how a machine with repurposed fields or a wrong resolution shows itself (docs/ftms.md P3, P9).
    public let plausible: ClosedRange<Int32>?

    @inlinable
    public init(
        _ jsonName: StaticString, _ format: WireFormat, _ scale: Scale = .one,
        notAvailable: Int32? = nil, plausible: ClosedRange<Int32>? = nil
    ) {
        self.jsonName = jsonName
        self.format = format
        self.scale = scale
        self.notAvailable = notAvailable
        self.plausible = plausible
    }

    /// A present value outside ``plausible``; a "not available" sentinel never is.
    @inlinable
    public func isImplausible(raw: Int32) -> Bool {
        guard raw != notAvailable, let plausible else { return false }
        return !plausible.contains(raw)
    }
}
