/// One run of the kernel, as Linux names it (`/proc/sys/kernel/random/boot_id`): the boot whose
/// `CLOCK_BOOTTIME` a monotonic instant counts from.
///
/// Two instants of the same boot can be subtracted across any number of daemon restarts, which
/// is how a checkpoint measures the daemon's downtime without the wall clock (contract §5);
/// instants of two boots say nothing about each other.
public struct BootID: Sendable, Hashable, Codable, CustomStringConvertible {
    public let value: String

    public init(_ value: String) {
        self.value = value
    }

    public var description: String { value }

    public init(from decoder: any Decoder) throws {
        value = try decoder.singleValueContainer().decode(String.self)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(value)
    }
}
