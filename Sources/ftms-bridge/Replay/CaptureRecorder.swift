import Clocks
import ProcessOutput
import JSON
import BlueZ
import Capture
import FTMS
import Foundation

/// `monitor --record FILE`: what the link saw, as `.ftmscap` (contract §8), one line written
/// as each event happens so a crash or a pulled plug loses at most the line in flight.
///
/// Times are measured from the recorder's creation on the monotonic clock; the header's
/// `start` is the wall clock at that moment, so replay dates the sessions as they happened.
final class CaptureRecorder {
    private let descriptor: Int32
    private let output: BufferedOutput
    private let clock = ContinuousClock()
    private let origin: ContinuousClock.Instant
    private let start: Duration
    private var buffer = JSONBuffer(capacity: 1024)
    private var wroteHeader = false

    struct OpenError: Error, CustomStringConvertible {
        let description: String
    }

    init(path: String, wall: WallClock = .system) throws {
        descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw OpenError(description: "cannot write \(path): \(errnoText(errno))") }
        output = BufferedOutput(descriptor: descriptor)
        origin = clock.now
        start = .milliseconds(wall.now().millisecondsSince1970)
    }

    deinit { close(descriptor) }

    /// The link is ready: the header first time round, and a `connected` event every time.
    func ready(_ info: MachineInfo) {
        if !wroteHeader {
            let header = CaptureHeader(
                name: info.name, address: info.address, manufacturer: info.manufacturer, model: info.model,
                type: info.type, feature: info.featureBytes, start: start)
            FtmscapWriter.appendHeader(header, to: &buffer)
            wroteHeader = true
        }
        append(CaptureEvent(time: elapsed, kind: .connected))
    }

    func notified(_ characteristic: Characteristic, _ value: [UInt8]) {
        append(.attribute(.notify, AttributeUUID(characteristic), AttributeValue(value), at: elapsed))
    }

    func disconnected() {
        guard wroteHeader else { return }
        append(CaptureEvent(time: elapsed, kind: .disconnected))
    }

    /// Microseconds are finer than BLE's own timing and keep the file readable.
    private var elapsed: Duration {
        .microseconds((clock.now - origin).microseconds)
    }

    private func append(_ event: CaptureEvent) {
        FtmscapWriter.appendEvent(event, to: &buffer)
        output.drain(&buffer, force: true)
    }
}
