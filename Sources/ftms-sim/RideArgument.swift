import Simulator

/// One `--ride KIND=PATH`: a kind of machine and the capture file one of them rides.
struct RideArgument: Equatable {
    let kind: MachineSpec.Kind
    let path: String

    /// The kinds that have a data characteristic to notify on.
    static let kinds: [MachineSpec.Kind] = MachineSpec.Kind.allCases.filter(\.hasGatt)

    init(parsing text: String) throws(SimulatorError) {
        let parts = text.split(separator: "=", maxSplits: 1)
        guard parts.count == 2 else {
            throw SimulatorError("--ride '\(text)' is not KIND=PATH, as bike=captures/bike-steady.ftmscap")
        }
        guard let kind = MachineSpec.Kind(rawValue: String(parts[0])), Self.kinds.contains(kind) else {
            throw SimulatorError("--ride kind '\(parts[0])' is not one of \(Self.kinds.map(\.rawValue).joined(separator: ", "))")
        }
        self.kind = kind
        path = String(parts[1])
    }
}
