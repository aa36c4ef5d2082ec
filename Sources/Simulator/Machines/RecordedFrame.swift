public import FTMS

/// One notification out of a recording: when it went out, on which characteristic, and its
/// bytes exactly as the machine sent them.
///
/// A plain value rather than a capture event, so the simulator library needs no capture
/// reader: whoever loads the file (the `ftms-sim` executable, through the `Capture` module)
/// hands the simulator these.
public struct RecordedFrame: Sendable, Equatable {
    /// Since the recording's start.
    public var offset: Duration
    public var characteristic: Characteristic
    public var bytes: [UInt8]

    public init(offset: Duration, characteristic: Characteristic, bytes: [UInt8]) {
        self.offset = offset
        self.characteristic = characteristic
        self.bytes = bytes
    }
}
