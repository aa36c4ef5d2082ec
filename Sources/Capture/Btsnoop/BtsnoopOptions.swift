import FTMS

/// What the caller knows that the capture may not say.
public struct BtsnoopOptions: Sendable, Equatable {
    /// ATT handle → attribute UUID, for captures that start after service discovery (contract §8's
    /// `--handle-map`). These win over what discovery in the capture says.
    public var handleMap: [UInt16: AttributeUUID]
    /// Only this device's traffic, when a capture holds several links. Links whose peer the
    /// capture never names (it started after they connected) are kept.
    public var address: BluetoothAddress?

    public init(handleMap: [UInt16: AttributeUUID] = [:], address: BluetoothAddress? = nil) {
        self.handleMap = handleMap
        self.address = address
    }

    /// Parses `--handle-map` text: `HANDLE=UUID` pairs separated by commas or spaces, the
    /// handle as `0x0025` or decimal `37`, the UUID in any form ``AttributeUUID`` accepts or as
    /// an FTMS characteristic name (`0x0025=2ad2,0x0028=fitness-machine-status`).
    public static func parseHandleMap(_ text: String) -> Result<[UInt16: AttributeUUID], HandleMapError> {
        var map: [UInt16: AttributeUUID] = [:]
        for pair in text.split(whereSeparator: { $0 == "," || $0 == " " || $0 == "\n" || $0 == "\t" }) {
            let parts = pair.split(separator: "=", maxSplits: 1)
            guard parts.count == 2 else { return .failure(HandleMapError(pair: String(pair), reason: "expected HANDLE=UUID")) }
            let handleText = parts[0].lowercased()
            let handle =
                handleText.hasPrefix("0x") ? UInt16(handleText.dropFirst(2), radix: 16) : UInt16(handleText, radix: 10)
            guard let handle else {
                return .failure(HandleMapError(pair: String(pair), reason: "handle is not 0x0000–0xffff or decimal"))
            }
            let uuidText = String(parts[1])
            guard let uuid = AttributeUUID(parsing: uuidText) ?? Characteristic(parsing: uuidText).map(AttributeUUID.init)
            else { return .failure(HandleMapError(pair: String(pair), reason: "not a UUID or characteristic name")) }
            map[handle] = uuid
        }
        return .success(map)
    }

    public struct HandleMapError: Error, Sendable, Equatable, CustomStringConvertible {
        public let pair: String
        public let reason: String

        public var description: String { "handle map entry '\(pair)': \(reason)" }
    }
}
