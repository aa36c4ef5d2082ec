import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// An HTTP/1.1 server on a free loopback port that answers every request with the same bytes,
/// after reading the request whole (its head, then `Content-Length` bytes of body): a backend
/// whose answer a test writes out to the byte, headers included.
final class CannedServer: @unchecked Sendable {
    let port: UInt16
    private let listener: Int32

    init(answer: String) throws {
        let (listener, port) = try TransportTimeoutTests.boundLoopbackSocket()
        guard listen(listener, 8) == 0 else { throw TestFailure("cannot listen on loopback") }
        self.listener = listener
        self.port = port
        let bytes = Array(answer.utf8)
        Thread {
            while true {
                let client = accept(listener, nil, nil)
                guard client >= 0 else { return }
                Thread { Self.serve(client, bytes) }.start()
            }
        }.start()
    }

    private static func serve(_ client: Int32, _ answer: [UInt8]) {
        defer { close(client) }
        var pending: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            while let end = headEnd(pending) {
                let head = String(decoding: pending[..<end], as: UTF8.self).lowercased()
                let length = head.split(separator: "\r\n").first { $0.hasPrefix("content-length:") }
                    .flatMap { Int($0.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) } ?? 0
                guard pending.count >= end + 4 + length else { break }
                pending.removeFirst(end + 4 + length)
                guard answer.withUnsafeBytes({ write(client, $0.baseAddress, $0.count) }) == answer.count else { return }
            }
            let count = read(client, &buffer, buffer.count)
            guard count > 0 else { return }
            pending += buffer[0..<count]
        }
    }

    /// Where the request head ends (the index of its blank line's `\r\n\r\n`).
    private static func headEnd(_ bytes: [UInt8]) -> Int? {
        guard bytes.count >= 4 else { return nil }
        for index in 0...(bytes.count - 4) where bytes[index] == 13 && bytes[index + 1] == 10 && bytes[index + 2] == 13 && bytes[index + 3] == 10 {
            return index
        }
        return nil
    }

    deinit {
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
    }
}
