import Clocks
public import FTMS

/// A machine that plays back a recording instead of a rider: its data notifications, byte for
/// byte and in recorded order.
///
/// The stream asks a source for exactly one frame per tick, and `nil` ends it, so a replay can
/// neither leave a tick empty nor send two frames in one. The rule is therefore: each tick sends
/// the next recorded frame, and the machine ticks at the recording's own mean rate
/// (``recordedRate``, set by ``SimulatorConfiguration/ride(_:onMachine:rate:)`` unless a rate is
/// given), so a replay lasts as long as the recording did and only the irregularity of its gaps
/// is evened out. A faster rate replays faster, frame for frame.
///
/// Control Point changes are ignored: a recording cannot ride harder. The Control Point itself
/// still answers (``ControlPointMachine`` does that, whatever the source), so a client that
/// sets a target gets its `80 op 01` and Status as from any machine.
public struct RecordedRide: MachineDataSource, Equatable {
    public let characteristic: Characteristic
    /// The notifications on ``characteristic``, in recorded order.
    public let frames: [RecordedFrame]
    /// After the last frame, start again at the first instead of ending.
    public let loops: Bool
    private var position = 0

    /// The recording's notifications on `characteristic`; a recording without any is an error,
    /// since a machine riding it would never send a frame.
    public init(characteristic: Characteristic, recording: [RecordedFrame], loops: Bool = false) throws(SimulatorError) {
        let frames = recording.filter { $0.characteristic == characteristic }
        guard !frames.isEmpty else {
            throw SimulatorError("no \(characteristic.jsonName) (0x\(characteristic.shortUUID)) notifications to ride")
        }
        self.characteristic = characteristic
        self.frames = frames
        self.loops = loops
    }

    /// Frames per second over the span from the first frame to the last; 1 for a single frame
    /// or frames all at one instant.
    public var recordedRate: Double {
        let offsets = frames.map(\.offset)
        guard let first = offsets.min(), let last = offsets.max(), last > first else { return 1 }
        let span = last - first
        return Double(frames.count - 1) / span.seconds
    }

    public mutating func nextFrame(after interval: Duration) -> [UInt8]? {
        if position == frames.count {
            guard loops else { return nil }
            position = 0
        }
        defer { position += 1 }
        return frames[position].bytes
    }

    public mutating func apply(_ event: MachineEvent) {}
}
