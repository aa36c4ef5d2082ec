import Clocks

/// A failure injected from the start, as `ftms-sim --fault NAME[=ARGS]` gives it. The same
/// failures can be injected later through the `org.bluez.Mock` controls.
public enum Fault: Sendable, Equatable, CustomStringConvertible {
    /// The next `times` Connect() calls of each machine: Connected=true, Connected=false,
    /// `Failed "le-connection-abort-by-local"`.
    case connectAbort(times: Int)
    /// The next `times` Connect() calls never answer (until Disconnect or the caller's timeout).
    case connectHang(times: Int)
    /// The next `times` connections never reach ServicesResolved.
    case noResolve(times: Int)
    /// ServicesResolved before the GATT objects exist (bluez #1489), on first connections.
    case earlyResolve(times: Int)
    /// The next `times` Connect() calls reply before Connected=true is signalled.
    case connectReplyFirst(times: Int)
    /// The next `times` Connect() calls reply and never signal Connected=true.
    case connectSilent(times: Int)
    /// Every machine is connected and resolved when the simulator starts, as one left so by
    /// a crashed gateway or another client: it does not advertise, and is found only in
    /// BlueZ's objects.
    case connectedAtStart
    /// Every link drops after this many data notifications.
    case linkDrop(afterFrames: Int)
    /// Control permission is lost (Status 0xFF) after this many data notifications per link.
    case loseControl(afterFrames: Int)
    /// bluetoothd restarts: the name goes away `after` the start and comes back `down` later.
    case restart(after: Duration, down: Duration)
    /// Every adapter is powered off `after` the start and on again `off` later.
    case powerCycle(after: Duration, off: Duration)
    /// The first N StartDiscovery() calls on each adapter: InProgress (the kernel refused).
    case discoveryFailures(Int)
    /// The first N StartDiscovery() calls on each adapter succeed and the adapter does not scan:
    /// Discovering stays false and nothing is heard until every session has stopped: a session
    /// dropped without the client seeing why, which the daemon's `Discovering` check recovers.
    case deafDiscovery(Int)
    /// RSSI updates sent as strings, ManufacturerData and ServiceData as dbusmock's `aa{qv}`.
    case badTypes
    /// The Control Point answers this op code with this result code.
    case controlPointResult(opCode: UInt8, result: UInt8)
    /// Every machine is off at the start (not advertising; Connect fails) and is switched on
    /// `after` the start: a machine nobody has woken yet.
    case switchOn(after: Duration)
    /// Every machine goes to sleep `after` the start (its link drops, it stops advertising,
    /// Connect fails) and wakes `asleep` later: a console that sleeps between riders.
    case sleep(after: Duration, asleep: Duration)
    /// bluetoothd 5.66's use-after-free in `src/gatt-client.c` (fixed in 5.86): a client that
    /// disconnects a device, or leaves the bus, while bluetoothd still holds one of its
    /// acquired notify sockets (it has not yet handled the socket's hang-up) crashes it. The
    /// simulator exits as a crashed bluetoothd does (docs/simulator.md "notify-uaf").
    /// `hangUp` is how long after a socket's close (by the client, or by the link going down)
    /// the simulated `sock_hup` runs and `NotifyAcquired` goes false: 5.66 handles the hang-up
    /// in its own main-loop turn, after D-Bus calls that came later may have been answered.
    case notifyUseAfterFree(hangUp: Duration)

    /// `notify-uaf`'s hang-up delay when none is given: long enough that a client's next
    /// round trip is answered first, as it is on a loaded gateway.
    public static let defaultHangUpDelay = Duration.milliseconds(300)

    public static let usage = """
        connect-abort[=N] connect-hang[=N] no-resolve[=N] early-resolve[=N] connect-reply-first[=N] \
        connect-silent[=N] connected-at-start link-drop=FRAMES \
        lose-control=FRAMES restart=AFTER_MS[:DOWN_MS] power-cycle=AFTER_MS[:OFF_MS] discovery-fails=N deaf-discovery=N \
        bad-types cp-result=OP:RESULT switch-on=AFTER_MS sleep=AFTER_MS[:ASLEEP_MS] notify-uaf[=HANGUP_MS]
        """

    public init(parsing text: String) throws(SimulatorError) {
        let parts = text.split(separator: "=", maxSplits: 1).map(String.init)
        let name = parts.first ?? ""
        let argument = parts.count > 1 ? parts[1] : nil
        func count(default value: Int? = nil) throws(SimulatorError) -> Int {
            guard let argument else {
                if let value { return value }
                throw SimulatorError("fault '\(name)' needs a number, as \(name)=N")
            }
            guard let number = Int(argument), number >= 0 else {
                throw SimulatorError("fault '\(name)': '\(argument)' is not a whole number")
            }
            return number
        }
        func milliseconds(default second: Int) throws(SimulatorError) -> (Duration, Duration) {
            let numbers = (argument ?? "").split(separator: ":", omittingEmptySubsequences: false).map { Int($0) }
            guard argument != nil, (1...2).contains(numbers.count), let first = numbers[0], first >= 0 else {
                throw SimulatorError("fault '\(name)' needs AFTER_MS[:MS], as \(name)=2000:500")
            }
            let other = numbers.count == 2 ? numbers[1] : second
            guard let other, other >= 0 else { throw SimulatorError("fault '\(name)': '\(argument ?? "")' is not AFTER_MS[:MS]") }
            return (.milliseconds(first), .milliseconds(other))
        }
        switch name {
        case "connect-abort": self = .connectAbort(times: try count(default: 1))
        case "connect-hang": self = .connectHang(times: try count(default: 1))
        case "no-resolve": self = .noResolve(times: try count(default: 1))
        case "early-resolve": self = .earlyResolve(times: try count(default: 1))
        case "connect-reply-first": self = .connectReplyFirst(times: try count(default: 1))
        case "connect-silent": self = .connectSilent(times: try count(default: 1))
        case "connected-at-start":
            guard argument == nil else { throw SimulatorError("fault 'connected-at-start' takes no argument") }
            self = .connectedAtStart
        case "link-drop": self = .linkDrop(afterFrames: try count())
        case "lose-control": self = .loseControl(afterFrames: try count())
        case "restart":
            let (after, down) = try milliseconds(default: 500)
            self = .restart(after: after, down: down)
        case "power-cycle":
            let (after, off) = try milliseconds(default: 500)
            self = .powerCycle(after: after, off: off)
        case "discovery-fails": self = .discoveryFailures(try count())
        case "deaf-discovery": self = .deafDiscovery(try count(default: 1))
        case "switch-on":
            let (after, _) = try milliseconds(default: 0)
            guard !(argument ?? "").contains(":") else { throw SimulatorError("fault 'switch-on' needs AFTER_MS, as switch-on=5000") }
            self = .switchOn(after: after)
        case "sleep":
            let (after, asleep) = try milliseconds(default: 600_000)
            self = .sleep(after: after, asleep: asleep)
        case "bad-types":
            guard argument == nil else { throw SimulatorError("fault 'bad-types' takes no argument") }
            self = .badTypes
        case "notify-uaf":
            guard let argument else {
                self = .notifyUseAfterFree(hangUp: Self.defaultHangUpDelay)
                break
            }
            guard let delay = Int(argument), delay >= 0 else {
                throw SimulatorError("fault 'notify-uaf' takes HANGUP_MS, as notify-uaf=300")
            }
            self = .notifyUseAfterFree(hangUp: .milliseconds(delay))
        case "cp-result":
            let numbers = (argument ?? "").split(separator: ":").map { UInt8($0) ?? UInt8(hexadecimal: $0) }
            guard numbers.count == 2, let op = numbers[0], let result = numbers[1] else {
                throw SimulatorError("fault 'cp-result' needs OP:RESULT, as cp-result=4:4 or cp-result=0x04:0x04")
            }
            self = .controlPointResult(opCode: op, result: result)
        default:
            throw SimulatorError("unknown fault '\(name)'; known: \(Self.usage)")
        }
    }

    public var description: String {
        switch self {
        case .connectAbort(let times): "connect-abort=\(times)"
        case .connectHang(let times): "connect-hang=\(times)"
        case .noResolve(let times): "no-resolve=\(times)"
        case .earlyResolve(let times): "early-resolve=\(times)"
        case .connectReplyFirst(let times): "connect-reply-first=\(times)"
        case .connectSilent(let times): "connect-silent=\(times)"
        case .connectedAtStart: "connected-at-start"
        case .linkDrop(let frames): "link-drop=\(frames)"
        case .loseControl(let frames): "lose-control=\(frames)"
        case .restart(let after, let down): "restart=\(after.milliseconds):\(down.milliseconds)"
        case .powerCycle(let after, let off): "power-cycle=\(after.milliseconds):\(off.milliseconds)"
        case .discoveryFailures(let count): "discovery-fails=\(count)"
        case .deafDiscovery(let count): "deaf-discovery=\(count)"
        case .badTypes: "bad-types"
        case .controlPointResult(let op, let result): "cp-result=\(op):\(result)"
        case .switchOn(let after): "switch-on=\(after.milliseconds)"
        case .sleep(let after, let asleep): "sleep=\(after.milliseconds):\(asleep.milliseconds)"
        case .notifyUseAfterFree(let hangUp): "notify-uaf=\(hangUp.milliseconds)"
        }
    }
}

extension UInt8 {
    /// `0x04` or `04` in hexadecimal.
    init?(hexadecimal text: Substring) {
        let digits = text.hasPrefix("0x") || text.hasPrefix("0X") ? text.dropFirst(2) : text
        guard !digits.isEmpty, let value = UInt8(digits, radix: 16) else { return nil }
        self = value
    }
}
