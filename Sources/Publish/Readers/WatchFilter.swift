/// What one reader asked to see: `{"watch": {"machines": [...], "types": [...]}}`.
///
/// `nil` (the key missing, `null`, or an empty list) means all. A message that is about no
/// machine (`upload`, a daemon-wide `status`) passes any machine filter: it concerns every
/// machine, and a `types` list is the way to leave it out.
public struct WatchFilter: Sendable, Equatable {
    public var machines: Set<String>?
    public var types: Set<MessageType>?

    public init(machines: Set<String>? = nil, types: Set<MessageType>? = nil) {
        self.machines = machines.flatMap { $0.isEmpty ? nil : $0 }
        self.types = types.flatMap { $0.isEmpty ? nil : $0 }
    }

    public static let all = WatchFilter()

    func accepts(_ type: MessageType, machine: String?) -> Bool {
        if let types, !types.contains(type) { return false }
        if let machines, let machine, !machines.contains(machine) { return false }
        return true
    }

    /// Whether the resync state of `machine` belongs in this reader's `hello`.
    func accepts(machine: String) -> Bool {
        machines?.contains(machine) ?? true
    }
}

import JSON
import FTMS

extension WatchFilter {
    /// `{"machines":[…],"types":[…]}`, sorted, empty lists for "all": how `hello` tells a
    /// reader which filter it is under.
    func writeJSON(into json: inout JSONBuffer) {
        json.append(UInt8(ascii: "{"))
        json.appendKey("machines", first: true)
        json.appendStringList((machines ?? []).sorted())
        json.appendKey("types")
        json.appendStringList((types ?? []).map(\.rawValue).sorted())
        json.append(UInt8(ascii: "}"))
    }

    /// The request a reader sends for this filter, `{"watch":{…}}` and its newline: what
    /// ``WatchRequest`` reads on the daemon's side, written beside the `hello`'s copy of it.
    public var requestLine: [UInt8] {
        var json = JSONBuffer(capacity: 64)
        json.append(UInt8(ascii: "{"))
        json.appendKey("watch", first: true)
        writeJSON(into: &json)
        json.append("}\n")
        return json.bytes
    }
}

extension JSONBuffer {
    mutating func appendStringList(_ items: [String]) {
        append(UInt8(ascii: "["))
        for (index, item) in items.enumerated() {
            if index > 0 { append(UInt8(ascii: ",")) }
            appendString(item)
        }
        append(UInt8(ascii: "]"))
    }
}
