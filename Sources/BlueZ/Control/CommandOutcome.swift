package import FTMS

/// What a machine answered to one ``MachineCommand``, after the writer's retries.
package struct CommandOutcome: Sendable, Equatable {
    package var command: MachineCommand
    /// The bytes of the request that got the final answer.
    package var request: [UInt8]
    /// The machine's answer to that request.
    package var response: ControlPointResponse
    /// Every request written, in order, Request Control included: the audit trail an
    /// operator sees when a fallback or a re-request happened.
    package var written: [[UInt8]]

    package init(command: MachineCommand, request: [UInt8], response: ControlPointResponse, written: [[UInt8]]) {
        self.command = command
        self.request = request
        self.response = response
        self.written = written
    }

    package var succeeded: Bool { response.result == .success }

    /// The result's FTMS name, or its raw code when FTMS reserves it.
    package var resultName: String {
        if let result = response.result { return "\(result.jsonName)" }
        return response.rawResult.map { "result 0x\(String($0, radix: 16))" } ?? "no result"
    }
}
