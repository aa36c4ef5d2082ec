import JSON
public import FTMS

/// One thing that happened on the link, at a time relative to the capture's start.
///
/// Time is a `Duration`, not a `Double`: the merger and the workout engine take `Duration`,
/// btsnoop's microseconds and `.ftmscap`'s decimal seconds convert to it exactly, and replayed
/// timers then fire on exactly the recorded instants.
public struct CaptureEvent: Sendable, Equatable {
    public var time: Duration
    public var kind: Kind

    public enum Kind: Sendable, Equatable {
        case attribute(AttributeOperation, uuid: AttributeUUID, value: AttributeValue)
        case connected
        case disconnected
    }

    public init(time: Duration, kind: Kind) {
        self.time = time
        self.kind = kind
    }

    public static func attribute(
        _ operation: AttributeOperation, _ uuid: AttributeUUID, _ value: AttributeValue, at time: Duration
    ) -> CaptureEvent {
        CaptureEvent(time: time, kind: .attribute(operation, uuid: uuid, value: value))
    }

    /// The FTMS characteristic this event carries, if it is one the codec knows.
    public var characteristic: Characteristic? {
        guard case .attribute(_, let uuid, _) = kind, let short = uuid.short else { return nil }
        return Characteristic(rawValue: short)
    }
}

extension CaptureEvent: CustomStringConvertible {
    /// `1.05 s indicate 2ad9 800001`: short enough to read in a failing test or a log line.
    public var description: String {
        // Exact decimal seconds, as `.ftmscap` writes them.
        var buffer = JSONBuffer(capacity: 48)
        DecimalSeconds.append(time, to: &buffer)
        let seconds = buffer.string + " s"
        return switch kind {
        case .attribute(let operation, let uuid, let value): "\(seconds) \(operation.rawValue) \(uuid) \(value)"
        case .connected: "\(seconds) connected"
        case .disconnected: "\(seconds) disconnected"
        }
    }
}
