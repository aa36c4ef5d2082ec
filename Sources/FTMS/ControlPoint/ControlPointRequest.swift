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

    /// How a Set Target Resistance Level request carries its level (SPEC §4).
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

/// The Control Point's response indication: `80 <request op code> <result> [parameters]`.
public struct ControlPointResponse: Sendable, Equatable {
    /// The echoed request op code; `nil` only when the indication was cut before it.
    public var requestOpCode: UInt8?
    /// The raw result code; `nil` only when the indication was cut before it.
    public var rawResult: UInt8?
    /// Spin Down Control's target speeds (low, high) when it succeeded.
    public var parameters: ParameterValues
    public var truncated = false
    public var trailingBytes = 0

    public var result: ResultCode? { rawResult.flatMap(ResultCode.init(rawValue:)) }
    public var request: ControlPointOpCode? { requestOpCode.flatMap(ControlPointOpCode.init(rawValue:)) }

    public init(requestOpCode: UInt8, result: ResultCode, parameters: [Int32] = []) {
        self.requestOpCode = requestOpCode
        self.rawResult = result.rawValue
        self.parameters = ParameterValues(parameters)
    }

    init(frame: OpCodeFrame) {
        requestOpCode = frame.parameters[0].map { UInt8(truncatingIfNeeded: $0) }
        rawResult = frame.parameters[1].map { UInt8(truncatingIfNeeded: $0) }
        parameters = ParameterValues(Array(frame.parameters.raws.dropFirst(2)))
        truncated = frame.truncated
        trailingBytes = frame.trailingBytes
    }

    static let header = [
        ParameterDescriptor("request_op_code", .uint8),
        ParameterDescriptor("result_code", .uint8),
    ]
    static let spinDownTargets = [
        ParameterDescriptor("target_speed_low_kmh", .uint16, .hundredth),
        ParameterDescriptor("target_speed_high_kmh", .uint16, .hundredth),
    ]

    /// The parameters after the header, which only a successful Spin Down Control carries.
    static func tail(requestOpCode: UInt8, result: UInt8) -> [ParameterDescriptor] {
        requestOpCode == ControlPointOpCode.spinDownControl.rawValue && result == ResultCode.success.rawValue
            ? spinDownTargets : []
    }

    public var parameterLayout: [ParameterDescriptor] {
        guard let requestOpCode, let rawResult else { return [] }
        return Self.tail(requestOpCode: requestOpCode, result: rawResult)
    }

    public func encoded() -> [UInt8] {
        let header = [requestOpCode, rawResult].compactMap { $0.map(Int32.init) }
        let all = ParameterValues(header + parameters.raws)
        return OpCodeFrame(opCode: ControlPointOpCode.responseCode.rawValue, parameters: all)
            .encoded(layout: Array(Self.header.prefix(header.count)) + parameterLayout)
    }
}

/// Anything written to or indicated by the Control Point.
public enum ControlPointMessage: Sendable, Equatable {
    case request(ControlPointRequest)
    case response(ControlPointResponse)
    /// A zero-length value: nothing to decode, reported as truncated.
    case empty

    public init(decoding bytes: UnsafeRawBufferPointer) {
        let frame = OpCodeFrame(decoding: bytes) { op, remaining in
            guard op == ControlPointOpCode.responseCode.rawValue else {
                return ControlPointOpCode(rawValue: op)?.parameters(parameterBytes: remaining) ?? []
            }
            // The response's tail depends on its header, so peek at it before choosing.
            if remaining >= 2, bytes.count >= 3 {
                return ControlPointResponse.header + ControlPointResponse.tail(requestOpCode: bytes[1], result: bytes[2])
            }
            return ControlPointResponse.header
        }
        guard frame.opCode != nil else {
            self = .empty
            return
        }
        if frame.opCode == ControlPointOpCode.responseCode.rawValue {
            self = .response(ControlPointResponse(frame: frame))
        } else {
            var request = ControlPointRequest(frame: frame)
            if request.opCode == .setTargetResistanceLevel, frame.parameters.count == 1 {
                request.resistanceForm = bytes.count >= 3 ? .sint16 : .uint8
            }
            self = .request(request)
        }
    }

    public func encoded() -> [UInt8] {
        switch self {
        case .request(let request): request.encoded()
        case .response(let response): response.encoded()
        case .empty: []
        }
    }
}
