import Clocks
import DeterministicRandom
import Capture
import FTMS
import Workout

/// Runs one capture through the live pipeline (decode → merge → engine), on a virtual clock
/// taken from the capture (contract §8): as fast as possible, or in real time on request.
///
/// The capture's `t` is the engine's monotonic time and, added to the header's `start`, its
/// wall clock; a capture without `start` is dated from the Unix epoch, so its sessions still
/// come out the same on every run. Session ids come from a generator seeded with the file's
/// bytes: the same capture always yields the same ids, two captures different ones.
struct CaptureReplay {
    let path: String
    var rules = SessionRules()
    var btsnoop = BtsnoopOptions()
    var realtime = false

    /// How a replay ended: how much it read, and the damage that stopped it early, if any.
    struct Result {
        var machine: MachineIdentity?
        var events = 0
        var notifications = 0
        var error: String?
        /// What a btsnoop capture held (records, ATT PDUs, notifications by handle, EATT
        /// channels), for a replay that found nothing to ride.
        var contents: String?
    }

    /// What the pipeline produced, with the capture time it happened at.
    enum Output {
        /// The capture's machine, before anything else.
        case opened(MachineIdentity)
        case connected
        case disconnected
        case sample(DataRecord)
        /// The open session's plot point (at most one a second), as the daemon stores it.
        case seriesPoint(SeriesPoint, sessionID: String)
        case status(FitnessMachineStatus)
        case session(SessionEvent)
    }

    /// Replays the capture, handing everything the pipeline produces to `handle` as it happens.
    /// Damage to the file stops the read, but what came before it is replayed and its sessions
    /// closed.
    func run(_ handle: (Output, Timestamp) async -> Void) async -> Result {
        var result = Result()
        let bytes: [UInt8]
        do {
            bytes = try CaptureFile.load(path: path)
        } catch {
            result.error = error.description
            return result
        }
        var reader: any CaptureEventSource
        do {
            reader = try captureReader(for: bytes, options: btsnoop)
        } catch {
            result.error = error.description
            return result
        }
        guard let machine = Self.machine(of: reader, bytes: bytes, path: path) else {
            result.error = "no Indoor Bike Data or Rower Data in the capture, and its header names no machine type"
            if var btsnoop = reader as? BtsnoopReader {
                while (try? btsnoop.next()) != nil {}
                result.error? += " (it holds \(btsnoop.statistics.summary))"
            }
            return result
        }
        result.machine = machine
        await handle(.opened(machine), Timestamp(monotonic: .zero, wallOrigin: .init(millisecondsSince1970: 0)))
        // A btsnoop file's start is its first record's timestamp, known only once that record is read.
        let start = reader.header.start ?? reader.completeHeader().start
        let origin = UTCTime(millisecondsSince1970: Self.milliseconds(start ?? .zero))
        var pipeline = MachinePipeline(machine: machine, rules: rules, ids: RandomSessionIDs(using: SplitMix64(seed: Self.seed(bytes))))
        let clock = ContinuousClock()
        let started = clock.now
        var last = Duration.zero
        func deliver(_ events: SessionEvents, at time: Timestamp) async {
            for event in events { await handle(.session(event), time) }
        }
        while true {
            let event: CaptureEvent
            do {
                guard let next = try reader.next() else { break }
                event = next
            } catch {
                result.error = error.description
                break
            }
            result.events += 1
            if realtime { try? await Task.sleep(until: started + event.time, clock: clock) }
            last = max(last, event.time)
            let time = Timestamp(monotonic: event.time, wallOrigin: origin)
            switch event.kind {
            case .connected:
                await handle(.connected, time)
                await deliver(pipeline.connected(at: time), at: time)
            case .disconnected:
                await handle(.disconnected, time)
                await deliver(pipeline.disconnected(at: time), at: time)
            case .attribute(let operation, _, let value):
                guard operation == .notify || operation == .indicate, let characteristic = event.characteristic else {
                    await deliver(pipeline.tick(at: time), at: time)
                    continue
                }
                result.notifications += 1
                let output = value.withUnsafeBytes { pipeline.notification(characteristic, $0, at: time) }
                if let sample = output.sample { await handle(.sample(sample), time) }
                if let point = output.seriesPoint, let id = pipeline.engine.openSessionID { await handle(.seriesPoint(point, sessionID: id), time) }
                if let status = output.status { await handle(.status(status), time) }
                await deliver(output.events, at: time)
            }
        }
        let end = Timestamp(monotonic: last, wallOrigin: origin)
        await deliver(pipeline.close(at: end, reason: .endOfCapture), at: end)
        if let btsnoop = reader as? BtsnoopReader { result.contents = btsnoop.statistics.summary }
        return result
    }

    /// The machine a capture recorded: its header, else what the whole capture reveals, else
    /// the first data characteristic it carries. `nil` when nothing says bike or rower.
    static func machine(of reader: any CaptureEventSource, bytes: [UInt8], path: String) -> MachineIdentity? {
        var header = reader.header
        if header.type == nil || header.name == nil { header = reader.completeHeader() }
        let stem = path.split(separator: "/").last.map { String($0.split(separator: ".").first ?? $0) } ?? path
        var type = header.type
        if type == nil, let name = header.name {
            type = MachineType(machineName: name)
        }
        if type == nil {
            var scan = reader
            while let event = try? scan.next() {
                if let characteristic = event.characteristic, characteristic == .indoorBikeData || characteristic == .rowerData {
                    type = characteristic == .indoorBikeData ? .bike : .rower
                    break
                }
            }
        }
        guard let type else { return nil }
        return MachineIdentity(name: header.name ?? stem, address: header.address ?? "", model: header.model, type: type)
    }

    static func milliseconds(_ duration: Duration) -> Int64 {
        duration.milliseconds
    }

    /// FNV-1a over the file: cheap, stable across runs and platforms.
    static func seed(_ bytes: [UInt8]) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes {
            hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3
        }
        return hash
    }
}
