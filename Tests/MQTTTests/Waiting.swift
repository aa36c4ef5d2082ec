import Foundation
import MQTT

/// Waits for a condition instead of sleeping a fixed time: tests must hold on a loaded CI box.
func eventually(_ what: String, timeout: Double = 20, _ condition: () async -> Bool) async throws {
    let deadline = Date().addingTimeInterval(timeout)
    while !(await condition()) {
        guard Date() < deadline else { throw WaitTimeout(what: what) }
        try await Task.sleep(for: .milliseconds(10))
    }
}

struct WaitTimeout: Error, CustomStringConvertible {
    let what: String
    var description: String { "timed out waiting for \(what)" }
}

/// Collects a subscription's messages in the background, for assertions on what arrived.
actor Inbox {
    private(set) var messages: [MQTTMessage] = []
    private var task: Task<Void, Never>?

    init(_ stream: AsyncStream<MQTTMessage>) {
        Task { await self.drain(stream) }
    }

    private func drain(_ stream: AsyncStream<MQTTMessage>) async {
        for await message in stream { messages.append(message) }
    }

    func texts(on topic: String) -> [String] {
        messages.filter { $0.topic == topic }.map(\.text)
    }
}
