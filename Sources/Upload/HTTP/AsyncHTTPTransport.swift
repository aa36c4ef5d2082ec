package import AsyncHTTPClient
import Clocks
import NIOCore
import NIOHTTP1

/// ``HTTPTransport`` over AsyncHTTPClient.
///
/// AsyncHTTPClient's deadline covers only the wait for the answer's head; a backend that
/// sends headers and then stalls would hang the body read. So the whole exchange also races
/// a timer, a little longer than the deadline so that AsyncHTTPClient, which knows why it
/// got no answer (connection refused, say), reports first when it can; the loser is
/// cancelled, which closes the connection.
package struct AsyncHTTPTransport: HTTPTransport {
    package let baseURL: String
    let client: HTTPClient
    /// Answers larger than this are refused (the largest real one is `GET /sessions`).
    let maximumBody: Int
    /// Times the whole exchange; injected so the daemon's timers stay off libdispatch.
    let clock: any Clock<Duration>

    /// `baseURL` is `http://host:port` or `https://…`, optionally with a path prefix.
    package init(baseURL: String, client: HTTPClient = .backend, maximumBody: Int = 64 << 20, clock: any Clock<Duration> = ContinuousClock()) throws {
        self.clock = clock
        guard let scheme = baseURL.split(separator: ":").first, scheme == "http" || scheme == "https",
              baseURL.contains("://"), baseURL.count > scheme.count + 3
        else { throw BackendError.badConfiguration("backend URL must be http://HOST[:PORT] or https://…, got \(baseURL)") }
        self.baseURL = baseURL.hasSuffix("/") ? String(baseURL.dropLast()) : baseURL
        self.client = client
        self.maximumBody = maximumBody
    }

    package func send(_ request: BackendRequest, timeout: Duration) async throws -> BackendReply {
        guard let reply = try await withTimeout(timeout + Self.bodyGrace, on: clock, { try await perform(request, timeout: timeout) }) else {
            throw BackendError.timeout(seconds: Self.seconds(timeout))
        }
        return reply
    }

    private func perform(_ request: BackendRequest, timeout: Duration) async throws -> BackendReply {
        var outgoing = HTTPClientRequest(url: baseURL + request.path)
        outgoing.method = HTTPMethod(rawValue: request.method.rawValue)
        outgoing.headers.add(name: "Accept", value: "application/json")
        if let bearer = request.bearer { outgoing.headers.add(name: "Authorization", value: "Bearer " + bearer) }
        if let body = request.body {
            outgoing.headers.add(name: "Content-Type", value: "application/json")
            outgoing.body = .bytes(ByteBuffer(bytes: body))
        }
        do {
            let sentAt = SystemClocks.boottime()
            let response = try await client.execute(outgoing, timeout: .nanoseconds(Self.nanoseconds(timeout)))
            let receivedAt = SystemClocks.boottime()
            var body = try await response.body.collect(upTo: maximumBody)
            return BackendReply(
                status: Int(response.status.code), retryAfter: response.headers.first(name: "Retry-After"),
                date: response.headers.first(name: "Date"), body: body.readBytes(length: body.readableBytes) ?? [],
                sentAt: sentAt, receivedAt: receivedAt)
        } catch is CancellationError {
            throw CancellationError()
        } catch let error as HTTPClientError where error == .deadlineExceeded || error == .connectTimeout || error == .readTimeout {
            throw BackendError.timeout(seconds: Self.seconds(timeout))
        } catch let error as BackendError {
            throw error
        } catch {
            throw BackendError.unreachable(Self.firstLine(String(describing: error)))
        }
    }

    /// How much longer than the deadline the whole exchange may take.
    static let bodyGrace = Duration.milliseconds(250)

    static func seconds(_ duration: Duration) -> Double {
        duration.seconds
    }

    static func nanoseconds(_ duration: Duration) -> Int64 {
        duration.nanoseconds
    }

    static func firstLine(_ text: String) -> String {
        String(text.split(whereSeparator: \.isNewline).first ?? "")
    }
}

extension HTTPClient {
    /// The client every backend call goes through: AsyncHTTPClient's shared one, except that a
    /// connection that cannot be made fails the call at once.
    ///
    /// AsyncHTTPClient's pool otherwise retries a failed connect with its own backoff until the
    /// call's deadline, so a backend that is down (connection refused) cost `ftms-bridge login`
    /// and every upload attempt the whole timeout before saying so. The upload scheduler has a
    /// backoff of its own (contract §6), which is what should decide when to try again.
    /// Like `.shared`, it lives as long as the process and is never shut down.
    package static let backend: HTTPClient = {
        var configuration = HTTPClient.Configuration.singletonConfiguration
        configuration.connectionPool.retryConnectionEstablishment = false
        return HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
    }()
}
