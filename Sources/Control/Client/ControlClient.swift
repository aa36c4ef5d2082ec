import LocalSocket

/// The CLI's side of the control socket: one request, one answer, on a fresh connection.
///
/// Synchronous, with every wait (connecting, writing, reading) bounded by one deadline through
/// poll(2): a command-line tool sends one request and has nothing else to do meanwhile, and
/// needs no event loop for it. Call it from a thread that may block for up to `timeout`
/// (in an async context, not from a task the answer depends on).
package struct ControlClient: Sendable {
    /// The longest answer line read: a `machines` list of a big gym fits many times over.
    package static let maximumAnswerLength = 4 * 1024 * 1024

    package var socketPath: String
    /// For the whole exchange. Generous by default: the daemon answers a machine command only
    /// after the machine does, with contract §4's retries (up to ~16 s), and `upload` after the
    /// backend.
    package var timeout: Duration

    package init(socketPath: String, timeout: Duration = .seconds(60)) {
        self.socketPath = socketPath
        self.timeout = timeout
    }

    /// Sends `request` and returns the daemon's answer, success or failure; throws only when
    /// there is no answer (``ControlClientError/noDaemon(path:)`` when nothing listens).
    package func request(_ request: ControlRequest) throws(ControlClientError) -> ControlResponse {
        let deadline = ContinuousClock.now + timeout
        let id = ControlRequestID.integer(Int64.random(in: 1...Int64(Int32.max)))
        let answer: [UInt8]
        do {
            var stream = try UnixStream.connect(to: socketPath, deadline: deadline, lineLimit: Self.maximumAnswerLength)
            try stream.send(Array((request.jsonLine(id: id) + "\n").utf8), deadline: deadline)
            answer = try stream.readLine(deadline: deadline)
        } catch {
            throw clientError(error)
        }
        let parsed: (id: ControlRequestID?, response: ControlResponse)
        do {
            parsed = try ControlResponse.parse(answer: answer)
        } catch {
            throw .badAnswer(path: socketPath, reason: error.description)
        }
        // An answer without an id is the server speaking before reading (a busy refusal).
        guard parsed.id == id || parsed.id == nil else {
            throw .badAnswer(path: socketPath, reason: "it answers request \(parsed.id.map(\.description) ?? "") instead of \(id)")
        }
        return parsed.response
    }

    private func clientError(_ error: UnixStreamError) -> ControlClientError {
        switch error {
        case _ where error.isNothingListening: .noDaemon(path: socketPath)
        case _ where error.isPermissionDenied: .permissionDenied(path: socketPath)
        case .cannotConnect(let code): .system(operation: "connect to", path: socketPath, errno: code)
        case .timedOut: .timedOut(path: socketPath, after: timeout)
        case .pathTooLong: .pathTooLong(path: socketPath)
        case .closed(partial: 0): .closedWithoutAnswer(path: socketPath)
        case .closed(let partial): .badAnswer(path: socketPath, reason: "it stops after \(partial) bytes, without a newline")
        case .lineTooLong(let limit): .badAnswer(path: socketPath, reason: "longer than \(limit) bytes")
        case .system(let operation, let code): .system(operation: operation, path: socketPath, errno: code)
        }
    }
}
