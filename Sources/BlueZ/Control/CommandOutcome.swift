public import FTMS

/// What a machine answered to one ``MachineCommand``, after the writer's retries.
public struct CommandOutcome: Sendable, Equatable {
    public var command: MachineCommand
    /// The bytes of the request that got the final answer.
    public var request: [UInt8]
    /// The machine's answer to that request.
    public var response: ControlPointResponse
    /// Every request written, in order, Request Control included: the audit trail an
    /// operator sees when a fallback or a re-request happened.
    public var written: [[UInt8]]

    public init(command: MachineCommand, request: [UInt8], response: ControlPointResponse, written: [[UInt8]]) {
        self.command = command
        self.request = request
        self.response = response
        self.written = written
    }

    public var succeeded: Bool { response.result == .success }

    /// The result's FTMS name, or its raw code when FTMS reserves it.
    public var resultName: String {
        if let result = response.result { return "\(result.jsonName)" }
        return response.rawResult.map { "result 0x\(String($0, radix: 16))" } ?? "no result"
    }
}
