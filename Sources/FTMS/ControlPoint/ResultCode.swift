/// Control Point result codes (FTMS 1.0 Table 4.24).
public enum ResultCode: UInt8, CaseIterable, Sendable {
    case success = 0x01
    case opCodeNotSupported = 0x02
    case invalidParameter = 0x03
    case operationFailed = 0x04
    case controlNotPermitted = 0x05

    public var jsonName: StaticString {
        switch self {
        case .success: "success"
        case .opCodeNotSupported: "op_code_not_supported"
        case .invalidParameter: "invalid_parameter"
        case .operationFailed: "operation_failed"
        case .controlNotPermitted: "control_not_permitted"
        }
    }
}
