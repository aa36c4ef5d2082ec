import Foundation
import NIOCore
import NIOPosix
import Synchronization

/// A plain TCP client for the endpoint's tests: sends bytes exactly as given (garbage
/// included) and returns everything the server sent until it closed, or until `timeout`.
enum RawHTTP {
    /// Whether any of the answer has arrived yet, for a test that acts once it has.
    final class Progress: Sendable {
        private let received = Mutex(false)
        var receivedAny: Bool { received.withLock { $0 } }
        func receive() { received.withLock { $0 = true } }
    }

    static func exchange(
        port: Int, _ request: [UInt8], timeout: TimeAmount = .seconds(5), group: any EventLoopGroup, progress: Progress? = nil
    ) async throws -> String {
        let collector = Collector(progress: progress)
        let channel = try await ClientBootstrap(group: group)
            .channelOption(.allowRemoteHalfClosure, value: false)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture { try channel.pipeline.syncOperations.addHandler(collector) }
            }
            .connect(host: "127.0.0.1", port: port)
            .get()
        let timer = channel.eventLoop.scheduleTask(in: timeout) { channel.close(promise: nil) }
        // The server may answer and close before all of a large request is written.
        try? await channel.writeAndFlush(channel.allocator.buffer(bytes: request)).get()
        try await channel.closeFuture.get()
        timer.cancel()
        return try await channel.eventLoop.submit { String(decoding: collector.bytes, as: UTF8.self) }.get()
    }

    static func get(_ path: String, port: Int, method: String = "GET", group: any EventLoopGroup) async throws -> Response {
        let text = try await exchange(port: port, Array("\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n".utf8), group: group)
        return Response(text)
    }

    struct Response {
        var status: Int
        var headers: [String: String]
        var body: String

        init(_ text: String) {
            let parts = text.components(separatedBy: "\r\n\r\n")
            let lines = (parts.first ?? "").components(separatedBy: "\r\n")
            status = lines.first.flatMap { Int($0.split(separator: " ").dropFirst().first ?? "") } ?? 0
            var headers: [String: String] = [:]
            for line in lines.dropFirst() {
                guard let colon = line.firstIndex(of: ":") else { continue }
                headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            }
            self.headers = headers
            body = parts.dropFirst().joined(separator: "\r\n\r\n")
        }
    }

    private final class Collector: ChannelInboundHandler, @unchecked Sendable {
        typealias InboundIn = ByteBuffer
        /// Touched only on the channel's event loop.
        var bytes: [UInt8] = []
        let progress: Progress?

        init(progress: Progress?) {
            self.progress = progress
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            bytes += unwrapInboundIn(data).readableBytesView
            progress?.receive()
        }
    }
}

/// Exposition lines as `series → value`: `name{labels}` → the number.
func samples(_ exposition: String) -> [String: Double] {
    var result: [String: Double] = [:]
    for line in exposition.split(separator: "\n") where !line.hasPrefix("#") {
        guard let space = line.lastIndex(of: " "), let value = Double(line[line.index(after: space)...]) else { continue }
        result[String(line[..<space])] = value
    }
    return result
}
