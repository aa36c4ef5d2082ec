import ProcessOutput
import Foundation
public import NIOCore

/// Server-Sent Events framing (the WHATWG `text/event-stream` format): `event: NAME`, one
/// `data:` line of JSON, a blank line. JSON from `JSONEncoder` holds no raw newline, so one
/// `data:` line is always enough.
public enum EventFrame {
    /// `hello`: a ``FloorSnapshot``. `tile`: a ``TileUpdate``. `gateway`: a ``GatewayStatus``.
    public static func make(event: String, _ value: some Encodable) -> ByteBuffer {
        let json = (try? ReportJSON.encoder().encode(value)) ?? Data("{}".utf8)
        var buffer = ByteBuffer()
        buffer.reserveCapacity(json.count + event.utf8.count + 16)
        buffer.writeString("event: \(event)\ndata: ")
        buffer.writeBytes(json)
        buffer.writeString("\n\n")
        return buffer
    }

    /// `value` as plain JSON, for `/api/floor`.
    public static func json(_ value: some Encodable) -> ByteBuffer {
        ByteBuffer(bytes: (try? ReportJSON.encoder().encode(value)) ?? Data("{}".utf8))
    }

    /// A comment line: keeps proxies from closing an idle stream, and finds dead browsers.
    public static let heartbeat = ByteBuffer(string: ": ping\n\n")

    /// Tells `EventSource` how long to wait before reconnecting after the stream ends.
    public static let retry = ByteBuffer(string: "retry: 1000\n\n")
}

/// A `tile` event: the tile without its sparkline, and the point it gained, if any.
public struct TileUpdate: Sendable, Equatable, Codable {
    public var tile: MachineTile
    public var point: SparkPoint?
}
