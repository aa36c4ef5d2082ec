/// A Fitness Machine Status notification.
public struct FitnessMachineStatus: Sendable, Equatable {
    /// `nil` only for a zero-length notification.
    public var rawOpCode: UInt8?
    public var parameters: ParameterValues
    /// Set by decoding when the event carried Target Resistance Level in the sint16 form.
    public var parameterBytes: Int
    public var truncated = false
    public var trailingBytes = 0

    public var opCode: StatusOpCode? { rawOpCode.flatMap(StatusOpCode.init(rawValue:)) }

    public init(opCode: StatusOpCode, parameters: [Int32] = []) {
        rawOpCode = opCode.rawValue
        self.parameters = ParameterValues(parameters)
        parameterBytes = opCode.parameters(parameterBytes: 1).reduce(0) { $0 + $1.field.format.byteCount }
    }

    public init(decoding bytes: UnsafeRawBufferPointer) {
        let frame = OpCodeFrame(decoding: bytes) { op, remaining in
            StatusOpCode(rawValue: op)?.parameters(parameterBytes: remaining) ?? []
        }
        rawOpCode = frame.opCode
        parameters = frame.parameters
        parameterBytes = max(0, bytes.count - 1 - frame.trailingBytes)
        truncated = frame.truncated
        trailingBytes = frame.trailingBytes
    }

    public var parameterLayout: [ParameterDescriptor] {
        opCode?.parameters(parameterBytes: parameterBytes) ?? []
    }

    public func encoded() -> [UInt8] {
        guard let rawOpCode else { return [] }
        return OpCodeFrame(opCode: rawOpCode, parameters: parameters).encoded(layout: parameterLayout)
    }
}
