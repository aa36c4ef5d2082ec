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
