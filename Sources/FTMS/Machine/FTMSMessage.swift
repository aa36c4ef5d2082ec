/// A decoded value of any FTMS characteristic.
public enum FTMSMessage: Sendable, Equatable {
    case data(DataRecord)
    case feature(FitnessMachineFeature)
    case status(FitnessMachineStatus)
    case controlPoint(ControlPointMessage)
    case trainingStatus(TrainingStatus)
    case range(SupportedRange)

    /// Decodes `bytes` as a value of `characteristic`. Never traps.
    public init(characteristic: Characteristic, decoding bytes: UnsafeRawBufferPointer) {
        switch characteristic {
        case .indoorBikeData: self = .data(DataRecord(kind: .indoorBikeData, decoding: bytes))
        case .rowerData: self = .data(DataRecord(kind: .rowerData, decoding: bytes))
        case .fitnessMachineFeature: self = .feature(FitnessMachineFeature(decoding: bytes))
        case .fitnessMachineStatus: self = .status(FitnessMachineStatus(decoding: bytes))
        case .fitnessMachineControlPoint: self = .controlPoint(ControlPointMessage(decoding: bytes))
        case .trainingStatus: self = .trainingStatus(TrainingStatus(decoding: bytes))
        case .supportedSpeedRange: self = .range(SupportedRange(kind: .speed, decoding: bytes))
        case .supportedInclinationRange: self = .range(SupportedRange(kind: .inclination, decoding: bytes))
        case .supportedResistanceLevelRange: self = .range(SupportedRange(kind: .resistanceLevel, decoding: bytes))
        case .supportedHeartRateRange: self = .range(SupportedRange(kind: .heartRate, decoding: bytes))
        case .supportedPowerRange: self = .range(SupportedRange(kind: .power, decoding: bytes))
        }
    }

    public init(characteristic: Characteristic, decoding bytes: [UInt8]) {
        self = bytes.withUnsafeBytes { FTMSMessage(characteristic: characteristic, decoding: $0) }
    }

    public func encoded() -> [UInt8] {
        switch self {
        case .data(let record): record.encoded()
        case .feature(let feature): feature.encoded()
        case .status(let status): status.encoded()
        case .controlPoint(let message): message.encoded()
        case .trainingStatus(let status): status.encoded()
        case .range(let range): range.encoded()
        }
    }

    public var isTruncated: Bool {
        switch self {
        case .data(let record): record.truncated
        case .feature(let feature): feature.truncated
        case .status(let status): status.truncated
        case .controlPoint(.request(let request)): request.truncated
        case .controlPoint(.response(let response)): response.truncated
        case .controlPoint(.empty): true
        case .trainingStatus(let status): status.truncated
        case .range(let range): range.truncated
        }
    }
}
