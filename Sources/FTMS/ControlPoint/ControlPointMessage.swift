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
