/// Training Status (0x2AD3): what phase of a program the machine thinks it is in.
public struct TrainingStatus: Sendable, Equatable {
    public var flags: UInt8?
    public var rawStatus: UInt8?
    /// The Training Status String, when flag bit 0 says one follows (UTF-8, rest of the value).
    public var statusString: String?
    public var truncated = false
    /// Bytes after the status code when flag bit 0 says no string follows (contract §3: counted,
    /// never silently dropped). With a string, the string runs to the end of the value.
    public var trailingBytes = 0

    public init(status: UInt8, string: String? = nil) {
        flags = string == nil ? 0 : 1
        rawStatus = status
        statusString = string
    }

    public init(decoding bytes: UnsafeRawBufferPointer) {
        var reader = ByteReader(bytes)
        flags = reader.read(.uint8).map { UInt8($0) }
        rawStatus = reader.read(.uint8).map { UInt8($0) }
        guard let flags, rawStatus != nil else {
            truncated = true
            return
        }
        if flags & 1 != 0 {
            let tail = UnsafeRawBufferPointer(rebasing: bytes[reader.offset...])
            statusString = String(decoding: tail, as: UTF8.self)
        } else {
            trailingBytes = reader.remaining
        }
    }

    public func encoded() -> [UInt8] {
        var bytes = [flags ?? 0, rawStatus ?? 0]
        if let statusString { bytes += Array(statusString.utf8) }
        return bytes
    }

    /// FTMS 1.0 Table 4.13 names.
    public var statusName: StaticString {
        switch rawStatus {
        case 0x00: "other"
        case 0x01: "idle"
        case 0x02: "warming_up"
        case 0x03: "low_intensity_interval"
        case 0x04: "high_intensity_interval"
        case 0x05: "recovery_interval"
        case 0x06: "isometric"
        case 0x07: "heart_rate_control"
        case 0x08: "fitness_test"
        case 0x09: "speed_outside_of_control_region_low"
        case 0x0A: "speed_outside_of_control_region_high"
        case 0x0B: "cool_down"
        case 0x0C: "watt_control"
        case 0x0D: "manual_mode_quick_start"
        case 0x0E: "pre_workout"
        case 0x0F: "post_workout"
        default: "reserved"
        }
    }
}
