/// A request written to the Fitness Machine Control Point (0x2AD9).
public struct ControlPointRequest: Sendable, Equatable {
    /// The raw op code; ``opCode`` is `nil` for codes FTMS 1.0 reserves.
    public var rawOpCode: UInt8
    public var parameters: ParameterValues
    public var truncated = false
    public var trailingBytes = 0

    public var opCode: ControlPointOpCode? { ControlPointOpCode(rawValue: rawOpCode) }

    public init(opCode: ControlPointOpCode, parameters: [Int32] = []) {
        self.rawOpCode = opCode.rawValue
        self.parameters = ParameterValues(parameters)
    }

    init(frame: OpCodeFrame) {
        rawOpCode = frame.opCode ?? 0
        parameters = frame.parameters
        truncated = frame.truncated
        trailingBytes = frame.trailingBytes
    }

    /// The parameter layout this request was decoded with, or will be encoded with.
    public var parameterLayout: [ParameterDescriptor] {
        guard let opCode else { return [] }
        if opCode == .setTargetResistanceLevel {
            return TargetParameters.targetResistance(parameterBytes: resistanceForm == .sint16 ? 2 : 1)
        }
        return opCode.parameters(parameterBytes: 0)
    }

    /// How a Set Target Resistance Level request carries its level (contract §4).
    public enum ResistanceForm: Sendable, Equatable {
        /// FTMS 1.0: uint8 at 0.1, so 0.0–25.5.
        case uint8
        /// The form some machines require instead: sint16 at 0.1.
        case sint16
    }

    /// Set only on Set Target Resistance Level requests.
    public var resistanceForm: ResistanceForm?

    public func encoded() -> [UInt8] {
        OpCodeFrame(opCode: rawOpCode, parameters: parameters).encoded(layout: parameterLayout)
    }

    // MARK: Requests the product sends

    public static let requestControl = ControlPointRequest(opCode: .requestControl)
    public static let reset = ControlPointRequest(opCode: .reset)
    public static let startOrResume = ControlPointRequest(opCode: .startOrResume)
    public static let stop = ControlPointRequest(opCode: .stopOrPause, parameters: [1])
    public static let pause = ControlPointRequest(opCode: .stopOrPause, parameters: [2])

    /// `level` in the machine's resistance unit at 0.1 resolution, clamped to what `form` carries.
    public static func setTargetResistanceLevel(_ level: Double, form: ResistanceForm = .uint8) -> Self {
        let descriptor = (form == .sint16 ? TargetParameters.targetResistanceSInt16 : TargetParameters.targetResistanceUInt8)[0].field
        let raw = descriptor.scale.raw(ofValue: level)
        var request = ControlPointRequest(
            opCode: .setTargetResistanceLevel,
            parameters: [min(max(raw, descriptor.format.rawRange.lowerBound), descriptor.format.rawRange.upperBound)])
        request.resistanceForm = form
        return request
    }

    public static func setTargetPower(watts: Int) -> Self {
        ControlPointRequest(opCode: .setTargetPower, parameters: [Int32(clamping: min(max(watts, -0x8000), 0x7FFF))])
    }

    public static func setIndoorBikeSimulation(windSpeedMps: Double, gradePercent: Double, crr: Double, cwKgPerM: Double) -> Self {
        let values = [windSpeedMps, gradePercent, crr, cwKgPerM]
        let raws = zip(TargetParameters.indoorBikeSimulation, values).map { descriptor, value in
            let raw = descriptor.field.scale.raw(ofValue: value)
            return min(max(raw, descriptor.field.format.rawRange.lowerBound), descriptor.field.format.rawRange.upperBound)
        }
        return ControlPointRequest(opCode: .setIndoorBikeSimulationParameters, parameters: raws)
    }
}
