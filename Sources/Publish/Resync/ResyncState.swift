import JSON
import FTMS
import NIOCore

/// What a new reader needs to catch up (contract §7's resync): the latest `machine` message of
/// each machine, and the latest `session_state` of each machine's open session.
///
/// Whole envelope lines are kept, not just payloads, because a payload does not name its
/// machine or session and the line already exists: keeping it is a reference to bytes the
/// fan-out made anyway. A session leaves the state when it is `finished`: a reader that
/// connects later has nothing to follow there.
struct ResyncState {
    /// Lines without their `\n`, keyed by machine.
    private var machines: [String: ByteBuffer] = [:]
    private var sessions: [String: OpenSession] = [:]

    private struct OpenSession {
        var sessionID: String?
        var line: ByteBuffer
    }

    var machineCount: Int { machines.count }
    var sessionCount: Int { sessions.count }

    /// Keeps `line` if it changes what a new reader must be told. Messages about no machine
    /// are not kept: there is nothing to key them by, and no type of them describes state.
    mutating func record(_ type: MessageType, machine: String?, sessionID: String?, state: String?, line: ByteBuffer) {
        guard let machine else { return }
        let body = line.getSlice(at: line.readerIndex, length: max(line.readableBytes - 1, 0)) ?? line
        switch type {
        case .machine:
            machines[machine] = body
        case .sessionState where state == "finished":
            // Only the session that finished: a late `finished` for an older session must not
            // hide the machine's newer one.
            if let open = sessions[machine], open.sessionID == sessionID { sessions[machine] = nil }
        case .sessionState:
            sessions[machine] = OpenSession(sessionID: sessionID, line: body)
        default:
            break
        }
    }

    /// `"machines":[…],"sessions":[…]` for the machines `filter` lets through, in machine order
    /// so that a hello's bytes do not depend on dictionary order.
    func writeMembers(into json: inout JSONBuffer, filter: WatchFilter) {
        json.appendKey("machines")
        writeList(machines.map { ($0.key, $0.value) }, into: &json, filter: filter)
        json.appendKey("sessions")
        writeList(sessions.map { ($0.key, $0.value.line) }, into: &json, filter: filter)
    }

    private func writeList(_ entries: [(String, ByteBuffer)], into json: inout JSONBuffer, filter: WatchFilter) {
        json.append(UInt8(ascii: "["))
        var first = true
        for (machine, line) in entries.sorted(by: { $0.0 < $1.0 }) where filter.accepts(machine: machine) {
            if !first { json.append(UInt8(ascii: ",")) }
            first = false
            line.withUnsafeReadableBytes { json.append(contentsOf: $0.assumingMemoryBound(to: UInt8.self)) }
        }
        json.append(UInt8(ascii: "]"))
    }
}
