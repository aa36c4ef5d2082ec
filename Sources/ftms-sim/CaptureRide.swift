import Capture
import FTMS
import Simulator

/// A capture file turned into the ride a simulated machine plays: the `Capture` module stays
/// here, in the executable, and the simulator library only ever sees ``RecordedFrame``s.
enum CaptureRide {
    /// Reads the whole capture first: a damaged one is refused rather than ridden up to the
    /// damage, and one recorded on the other kind of machine is refused rather than ridden as
    /// empty.
    static func load(_ argument: RideArgument, loops: Bool) throws(SimulatorError) -> RecordedRide {
        let path = argument.path
        let bytes: [UInt8]
        var frames: [RecordedFrame] = []
        let header: CaptureHeader
        do {
            bytes = try CaptureFile.load(path: path)
        } catch {
            throw SimulatorError(error.description)
        }
        do {
            var reader = try captureReader(for: bytes)
            while let event = try reader.next() {
                if case .attribute(.notify, _, let value) = event.kind, let characteristic = event.characteristic {
                    frames.append(RecordedFrame(offset: event.time, characteristic: characteristic, bytes: Array(value)))
                }
            }
            header = reader.completeHeader()
        } catch {
            throw SimulatorError("\(path): \(error.description)")
        }
        guard let characteristic = argument.kind.dataCharacteristic else {
            throw SimulatorError("\(path): a \(argument.kind.rawValue) machine has no data to ride")
        }
        let wanted = MachineType(dataCharacteristic: AttributeUUID(characteristic))
        if let recorded = header.type, let wanted, recorded != wanted {
            throw SimulatorError("\(path): a \(recorded.rawValue) capture, which a \(argument.kind.rawValue) machine cannot ride")
        }
        do {
            return try RecordedRide(characteristic: characteristic, recording: frames, loops: loops)
        } catch {
            throw SimulatorError("\(path): \(error.description)")
        }
    }
}
