import FoundationEssentials
import NIOCore
import ProcessOutput

/// The wire's JSON: written as every report is (`ReportJSON`: sorted keys, so responses and the
/// state file are stable byte for byte, and URLs without escaped slashes).
enum JSONCoding {
    static func data(_ value: some Encodable) throws -> Data {
        try ReportJSON.encoder().encode(value)
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
