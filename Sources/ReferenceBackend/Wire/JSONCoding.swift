import FoundationEssentials
import NIOCore

/// One place for the wire's JSON settings: sorted keys so responses and the state file are
/// stable byte for byte (tests and diffs read them), and URLs without escaped slashes.
enum JSONCoding {
    static func encoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }

    static func data(_ value: some Encodable) throws -> Data {
        try encoder().encode(value)
    }

    static func buffer(_ value: some Encodable) throws -> ByteBuffer {
        ByteBuffer(data: try data(value))
    }

    static func decode<T: Decodable>(_ type: T.Type, from buffer: ByteBuffer) throws -> T {
        try JSONDecoder().decode(type, from: Data(buffer.readableBytesView))
    }

    static func decode<T: Decodable>(_ type: T.Type, from data: Data) throws -> T {
        try JSONDecoder().decode(type, from: data)
    }
}

extension ByteBuffer {
    init(data: Data) {
        self.init(bytes: data)
    }
}
