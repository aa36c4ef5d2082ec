public import FTMS

/// Where a simulated machine's data frames come from.
///
/// The rider model is one source; a recorded capture replayed frame by frame is meant to be
/// another (the `Capture` module), which is why the simulator only ever asks for "the next
/// frame" and tells the source what the Control Point changed.
public protocol MachineDataSource: Sendable {
    /// The characteristic the frames are notified on (0x2AD2 or 0x2AD1).
    var characteristic: Characteristic { get }

    /// The next notification's bytes, `interval` after the previous one; `nil` when the source
    /// has nothing more to send (a capture that ended).
    mutating func nextFrame(after interval: Duration) -> [UInt8]?

    /// The Control Point changed something. A replayed capture may ignore it.
    mutating func apply(_ event: MachineEvent)
}
