import JSON
extension ControlRequest {
    /// The request as one line for the socket, without the newline: what ``ControlClient``
    /// sends, and what ``init(parsing:)`` reads back to the same request.
    package func jsonLine(id: ControlRequestID? = nil) -> String {
        var members: [(String, JSONValue)] = []
        if let id { members.append(("id", id.json)) }
        members.append(("command", .string(command)))
        if let machine { members.append(("machine", .string(machine))) }
        switch self {
        case .setResistance(_, let level): members.append(("level", .number(level)))
        case .setPower(_, let watts): members.append(("watts", .integer(Int64(watts))))
        case .startTraining(_, let training): members.append(("training", .string(training)))
        case .handover(let machines): if !machines.isEmpty { members.append(("machines", .array(machines.map { .string($0) }))) }
        case .status, .machines, .upload, .start, .stop, .pause, .reset, .stopTraining: break
        }
        return JSONWriter.text(.object(JSONObject(members)))
    }
}
