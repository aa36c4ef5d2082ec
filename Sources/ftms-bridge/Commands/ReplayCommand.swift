import ArgumentParser
import Capture
import Dashboard
import FTMS
import Foundation
import Logging
import Store
import Workout

/// `ftms-bridge replay FILE... [--realtime] [--json] [--queue]` (contract §8, §9): captures through
/// the same decoder, merger and engine as live data; with `--queue`, into the upload queue too.
struct ReplayCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "replay",
        abstract: "Run captures (.ftmscap or btsnoop) through the pipeline and report their sessions.",
        discussion: """
            With --json, stdout holds only the summaries of the sessions kept, one JSON object per line, \
            exactly as they would be uploaded. Sessions too short to keep, and damage to a capture, are \
            reported on stderr; a damaged capture still replays up to the damage, and the exit status is 1.
            """
    )

    @Argument(help: "Capture files: .ftmscap (JSON lines) or btsnoop (btmon -w, Android HCI log).")
    var files: [String]

    @Flag(help: "Replay at the capture's own pace instead of as fast as possible.")
    var realtime = false

    @Flag(help: "Print each kept session's summary as JSON, one per line, and nothing else.")
    var json = false

    @Option(help: "Also publish on a metrics socket at this path, as the daemon would (with --realtime, for developing displays).")
    var publish: String?

    @Flag(help: "With --publish: replay the captures again and again until interrupted.")
    var loop = false

    @Option(help: "For btsnoop captures without discovery: handle=uuid pairs, e.g. 0x0025=2ad2,0x0028=2ada.")
    var handleMap: String?

    @Flag(help: "Store each kept session as a pending upload in the state directory, as the daemon would.")
    var queue = false

    @Option(help: "Also draw the capture's power/cadence (bike) or pace/stroke rate (rower) and heart rate over time as an SVG file.")
    var plot: String?

    @OptionGroup var state: StateOptions

    func validate() throws {
        guard !files.isEmpty else { throw ValidationError("give at least one capture file") }
        if let handleMap, case .failure(let error) = BtsnoopOptions.parseHandleMap(handleMap) {
            throw ValidationError("--handle-map: \(error)")
        }
        if loop, publish == nil { throw ValidationError("--loop needs --publish") }
        if state.stateDirectory != nil, !queue { throw ValidationError("--state-dir needs --queue") }
        if plot != nil, files.count != 1 || loop { throw ValidationError("--plot draws one capture: give one file, without --loop") }
    }

    func run() async throws {
        var options = BtsnoopOptions()
        if let handleMap, case .success(let map) = BtsnoopOptions.parseHandleMap(handleMap) { options.handleMap = map }
        var damaged = false
        var table = ReplayTable()
        var publisher: ReplayPublisher?
        if let publish {
            do {
                publisher = try await ReplayPublisher(path: publish, version: FTMSBridge.version)
            } catch {
                printError("replay: \(error)")
                throw ExitCode(1)
            }
        }
        var store: GatewayStore?
        // The daemon's one path from a summary to the queue: the same transaction, plot points
        // and journal copy as a ride, so a replayed session is stored as the daemon stores one.
        var keeper: FinishedSessionKeeper?
        if queue {
            do {
                let opened = try state.openStore(creating: true)
                store = opened
                // Its log is the daemon's; replay says what it stored in its own lines.
                let quiet = Logger(label: "ftms-bridge.replay", factory: { _ in SwiftLogNoOpLogHandler() })
                keeper = FinishedSessionKeeper(store: opened, window: .seconds(1), logger: quiet)
            } catch {
                printError("replay: \(error)")
                throw ExitCode(1)
            }
        }
        var queued = (kept: 0, new: 0)
        repeat {
        for file in files {
            var replay = CaptureReplay(path: file)
            replay.btsnoop = options
            replay.realtime = realtime
            var machine: MachineIdentity?
            var plotted: [SeriesPoint] = []
            var firstSample: Double?
            var refused: SessionSummary?
            let result = await replay.run { output, time in
                if case .opened(let opened) = output { machine = opened }
                if plot != nil, case .sample(let record) = output {
                    let seconds = Double(time.wall.millisecondsSince1970) / 1000
                    let start = firstSample ?? seconds
                    firstSample = start
                    plotted.append(SeriesPoint(t: seconds - start, values: record.values))
                }
                if let keeper, case .seriesPoint(let point, let id) = output, let machine {
                    keeper.record(point, sessionID: id, machine: machine)
                }
                if let publisher, let machine { await publisher.publish(output, at: time, machine: machine) }
                guard case .session(let event) = output else { return }
                switch event {
                case .finished(_, let summary):
                    if json { printLine(summary.jsonString) } else { table.add(file: file, summary: summary) }
                    if let keeper, let machine, refused == nil {
                        switch await keeper.finish(summary, machine: machine) {
                        case .queued: queued = (queued.kept + 1, queued.new + 1)
                        case .alreadyQueued, .replaced, .handedOver: queued.kept += 1
                        case .held: refused = summary
                        }
                    }
                case .dropped(_, let reason, let summary):
                    printError("replay: \(file): session \(summary.sessionID) dropped: \(reason.rawValue)")
                    if let keeper, let machine { await keeper.drop(sessionID: summary.sessionID, machine: machine) }
                default:
                    break
                }
            }
            if let error = result.error {
                printError("replay: \(file): \(error)")
                damaged = true
            } else if result.notifications == 0, let contents = result.contents {
                printError("replay: \(file): no FTMS notifications to replay; the capture holds \(contents)")
            }
            if let plot {
                let name = machine?.name ?? String(file.split(separator: "/").last ?? "")
                let drawing = SessionPlot(title: "\(name) · \(file.split(separator: "/").last ?? "")", type: machine?.type ?? .bike, points: plotted)
                do {
                    try Data(drawing.svg.utf8).write(to: URL(fileURLWithPath: plot))
                } catch {
                    printError("replay: --plot \(plot): \(error.localizedDescription)")
                    throw ExitCode(1)
                }
            }
            if let refused, let store {
                printError("replay: \(file): session \(refused.sessionID) not stored: \(store.health.failure.map { "\($0)" } ?? "the store refused it")")
                throw ExitCode(1)
            }
        }
        } while loop && publisher != nil && !Task.isCancelled
        await publisher?.close()
        if !json { print(table.rendered) }
        if let store {
            FileHandle.standardError.write(Data(
                "replay: queued \(queued.new) sessions as pending in \(store.path) (\(queued.kept - queued.new) were already there)\n".utf8))
        }
        if damaged { throw ExitCode(1) }
    }
}

/// The readable form of `replay`: one row per kept session.
struct ReplayTable {
    private var rows: [[String]] = []

    mutating func add(file: String, summary: SessionSummary) {
        rows.append([
            String(file.split(separator: "/").last ?? ""), summary.startedAt.iso8601, Self.clock(summary.duration),
            "\(summary.totalDistance) m", "\(summary.totalEnergy) kcal",
            summary.detail.averagePower.map { String(format: "%.0f W", $0) } ?? "-", summary.detail.endReason.rawValue,
        ])
    }

    var rendered: String {
        guard !rows.isEmpty else { return "no sessions" }
        return renderTable([["CAPTURE", "STARTED", "DURATION", "DISTANCE", "ENERGY", "AVG POWER", "ENDED BY"]] + rows)
    }

    static func clock(_ seconds: Int) -> String {
        String(format: "%d:%02d:%02d", seconds / 3600, seconds / 60 % 60, seconds % 60)
    }
}
