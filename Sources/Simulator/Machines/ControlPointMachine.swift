import FTMS

/// The Fitness Machine Control Point (0x2AD9) as a machine's firmware answers it.
///
/// Pure: a request's bytes in, the response indication (`80 <op> <result>`), the Fitness
/// Machine Status notification for a success, and the change to the machine out. It answers
/// like the Python fake (Tests/Fixtures/dbusmock/README.md) so both peers agree.
public struct ControlPointMachine: Sendable {
    public struct Outcome: Sendable, Equatable {
        public var response: [UInt8]
        /// Sent on 0x2ADA after a success, when someone is subscribed.
        public var status: [UInt8]?
        public var event: MachineEvent?

        public init(response: [UInt8], status: [UInt8]?, event: MachineEvent?) {
            self.response = response
            self.status = status
            self.event = event
        }
    }

    public private(set) var controlled = false
    public var resistanceForm: MachineSpec.ResistanceForm
    /// Result codes forced per op code (a machine that fails on purpose).
    public var forcedResults: [UInt8: UInt8] = [:]
    let targetFeatures: UInt32
    /// In the Control Point's raw 0.1 units, from 0x2AD6.
    let resistanceRange: ClosedRange<Int32>?
    /// Watts, from 0x2AD8.
    let powerRange: ClosedRange<Int32>?

    static let targetResistance: UInt32 = 1 << 2
    static let targetPower: UInt32 = 1 << 3
    static let targetSimulation: UInt32 = 1 << 13

    /// The Control Point of a `kind` machine, with that machine's features and ranges.
    public init(kind: MachineSpec.Kind, resistanceForm: MachineSpec.ResistanceForm) {
        self.init(layout: GattLayout(kind: kind), resistanceForm: resistanceForm)
    }

    init(layout: GattLayout, resistanceForm: MachineSpec.ResistanceForm) {
        self.resistanceForm = resistanceForm
        targetFeatures = layout.targetSettingFeatures
        let characteristics = layout.services.flatMap(\.characteristics)
        resistanceRange = characteristics.first { $0.uuid == 0x2AD6 }.flatMap { Self.range(.resistanceLevel, $0.value) }
        powerRange = characteristics.first { $0.uuid == 0x2AD8 }.flatMap { Self.range(.power, $0.value) }
    }

    private static func range(_ kind: SupportedRange.Kind, _ value: [UInt8]) -> ClosedRange<Int32>? {
        let range = value.withUnsafeBytes { SupportedRange(kind: kind, decoding: $0) }
        guard let low = range.raws[0], let high = range.raws[1], low <= high else { return nil }
        return low...high
    }

    /// Another client took control, or the link dropped.
    public mutating func loseControl() {
        controlled = false
    }

    /// Answers one write of a non-empty value.
    public mutating func handle(_ request: [UInt8]) -> Outcome {
        guard let op = request.first else { return Outcome(response: [], status: nil, event: nil) }
        let parameters = Array(request.dropFirst())
        var (result, status, event) = decide(op: op, parameters: parameters)
        if let forced = forcedResults[op] { result = forced }
        if result == ResultCode.success.rawValue {
            if op == ControlPointOpCode.requestControl.rawValue { controlled = true }
            if op == ControlPointOpCode.reset.rawValue { controlled = false }
        } else {
            status = nil
            event = nil
        }
        let response = ResultCode(rawValue: result).map { ControlPointResponse(requestOpCode: op, result: $0).encoded() }
            ?? [ControlPointOpCode.responseCode.rawValue, op, result]
        return Outcome(response: response, status: status, event: event)
    }

    private typealias Decision = (result: UInt8, status: [UInt8]?, event: MachineEvent?)

    private func decide(op: UInt8, parameters: [UInt8]) -> Decision {
        let success = ResultCode.success.rawValue
        let notSupported: Decision = (ResultCode.opCodeNotSupported.rawValue, nil, nil)
        let invalid: Decision = (ResultCode.invalidParameter.rawValue, nil, nil)
        guard let code = ControlPointOpCode(rawValue: op), code != .responseCode else { return notSupported }
        if code == .requestControl { return (success, nil, nil) }
        guard controlled else { return (ResultCode.controlNotPermitted.rawValue, nil, nil) }
        switch code {
        case .reset:
            return (success, FitnessMachineStatus(opCode: .reset).encoded(), .reset)
        case .setTargetResistanceLevel:
            guard targetFeatures & Self.targetResistance != 0 else { return notSupported }
            let level: Int32
            switch (parameters.count, resistanceForm) {
            case (1, .uint8), (1, .any): level = Int32(parameters[0])
            case (2, .sint16), (2, .any): level = Int32(Int16(bitPattern: UInt16(parameters[0]) | UInt16(parameters[1]) << 8))
            default: return invalid
            }
            if let resistanceRange, !resistanceRange.contains(level) { return invalid }
            var status = FitnessMachineStatus(opCode: .targetResistanceLevelChanged, parameters: [level])
            status.parameterBytes = parameters.count
            return (success, status.encoded(), .targetResistance(Double(level) / 10))
        case .setTargetPower:
            guard targetFeatures & Self.targetPower != 0 else { return notSupported }
            guard parameters.count == 2 else { return invalid }
            let watts = Int32(Int16(bitPattern: UInt16(parameters[0]) | UInt16(parameters[1]) << 8))
            if let powerRange, !powerRange.contains(watts) { return invalid }
            return (success, FitnessMachineStatus(opCode: .targetPowerChanged, parameters: [watts]).encoded(), .targetPower(watts: Int(watts)))
        case .startOrResume:
            guard parameters.isEmpty else { return invalid }
            return (success, FitnessMachineStatus(opCode: .startedOrResumedByUser).encoded(), .startedOrResumed)
        case .stopOrPause:
            guard parameters.count == 1, parameters[0] == 1 || parameters[0] == 2 else { return invalid }
            let status = FitnessMachineStatus(opCode: .stoppedOrPausedByUser, parameters: [Int32(parameters[0])]).encoded()
            return (success, status, parameters[0] == 1 ? .stopped : .paused)
        case .setIndoorBikeSimulationParameters:
            guard targetFeatures & Self.targetSimulation != 0 else { return notSupported }
            guard parameters.count == 6 else { return invalid }
            let grade = Double(Int16(bitPattern: UInt16(parameters[2]) | UInt16(parameters[3]) << 8)) / 100
            return (success, [StatusOpCode.indoorBikeSimulationParametersChanged.rawValue] + parameters, .simulation(gradePercent: grade))
        default:
            return notSupported
        }
    }
}
