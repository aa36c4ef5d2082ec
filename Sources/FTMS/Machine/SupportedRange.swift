/// The Supported Speed, Inclination, Resistance Level, Heart Rate and Power Range
/// characteristics (0x2AD4–0x2AD8): a minimum, a maximum and a minimum increment.
///
/// The Resistance Level Range is sint16 at 0.1 (contract §3) although data records carry
/// resistance at resolution 1; the Control Point writer clamps to it (contract §4).
public struct SupportedRange: Sendable, Equatable {
    public enum Kind: Sendable, CaseIterable {
        case speed, inclination, resistanceLevel, heartRate, power

        public var characteristic: Characteristic {
            switch self {
            case .speed: .supportedSpeedRange
            case .inclination: .supportedInclinationRange
            case .resistanceLevel: .supportedResistanceLevelRange
            case .heartRate: .supportedHeartRateRange
            case .power: .supportedPowerRange
            }
        }

        /// Minimum, maximum and increment. Static, so a decode allocates nothing.
        public var layout: [FieldDescriptor] {
            switch self {
            case .speed: Self.speedLayout
            case .inclination: Self.inclinationLayout
            case .resistanceLevel: Self.resistanceLevelLayout
            case .heartRate: Self.heartRateLayout
            case .power: Self.powerLayout
            }
        }

        private static let speedLayout = [
            FieldDescriptor("minimum_speed_kmh", .uint16, .hundredth),
            FieldDescriptor("maximum_speed_kmh", .uint16, .hundredth),
            FieldDescriptor("minimum_increment_kmh", .uint16, .hundredth),
        ]
        private static let inclinationLayout = [
            FieldDescriptor("minimum_inclination_percent", .sint16, .tenth),
            FieldDescriptor("maximum_inclination_percent", .sint16, .tenth),
            FieldDescriptor("minimum_increment_percent", .uint16, .tenth),
        ]
        private static let resistanceLevelLayout = [
            FieldDescriptor("minimum_resistance_level", .sint16, .tenth),
            FieldDescriptor("maximum_resistance_level", .sint16, .tenth),
            FieldDescriptor("minimum_increment", .uint16, .tenth),
        ]
        private static let heartRateLayout = [
            FieldDescriptor("minimum_heart_rate_bpm", .uint8),
            FieldDescriptor("maximum_heart_rate_bpm", .uint8),
            FieldDescriptor("minimum_increment_bpm", .uint8),
        ]
        private static let powerLayout = [
            FieldDescriptor("minimum_power_w", .sint16),
            FieldDescriptor("maximum_power_w", .sint16),
            FieldDescriptor("minimum_increment_w", .uint16),
        ]
    }

    public let kind: Kind
    /// Raw minimum, maximum and increment, as many as were complete.
    public var raws: ParameterValues
    public var truncated = false
    public var trailingBytes = 0

    public init(kind: Kind, minimum: Double, maximum: Double, increment: Double) {
        self.kind = kind
        let fields = kind.layout
        raws = ParameterValues(zip(fields, [minimum, maximum, increment]).map { $0.scale.raw(ofValue: $1) })
    }

    public init(kind: Kind, decoding bytes: UnsafeRawBufferPointer) {
        self.kind = kind
        raws = ParameterValues()
        var reader = ByteReader(bytes)
        for descriptor in kind.layout {
            guard let raw = reader.read(descriptor.format) else {
                truncated = true
                return
            }
            raws.append(raw)
        }
        trailingBytes = reader.remaining
    }

    public var minimum: Double? { value(0) }
    public var maximum: Double? { value(1) }
    public var increment: Double? { value(2) }

    func value(_ index: Int) -> Double? {
        raws[index].map { kind.layout[index].scale.value(ofRaw: $0) }
    }

    public func encoded() -> [UInt8] {
        var writer = ByteWriter()
        for (index, descriptor) in kind.layout.enumerated() {
            writer.write(raws[index] ?? 0, as: descriptor.format)
        }
        return writer.bytes
    }
}

extension SupportedRange {
    /// `value` brought inside the range and onto its increment grid, counted from the
    /// minimum. A machine may answer "invalid parameter" to a level between steps, so the
    /// Control Point writer sends only levels the machine declared (contract §4). A range
    /// with missing or inverted bounds leaves the value alone.
    public func clamped(_ value: Double) -> Double {
        guard let minimum, let maximum, minimum <= maximum, value.isFinite else { return value }
        var result = Swift.min(Swift.max(value, minimum), maximum)
        if let increment, increment > 0 {
            let steps = ((result - minimum) / increment).rounded()
            result = Swift.min(minimum + steps * increment, maximum)
        }
        // Onto the characteristic's own resolution, so 2.9999999 does not encode as 29 tenths.
        let scale = kind.layout[0].scale
        return scale.value(ofRaw: scale.raw(ofValue: result))
    }
}
