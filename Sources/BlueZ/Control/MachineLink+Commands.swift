import FTMS

extension MachineLink {
    /// Runs `command` with contract §4's policy, holding the Control Point throughout:
    /// - Request Control first when ours was never granted or was lost (Status 0xFF, 0x05);
    /// - a resistance level is clamped to the machine's 0x2AD6 range and sent in the form its
    ///   model accepted before (the spec's uint8 unless learned otherwise);
    /// - "invalid parameter" to the uint8 form is retried once as sint16, and a success
    ///   teaches the model's form to every link that shares ``resistanceForms``;
    /// - "control not permitted" asks for control again and retries once;
    /// - after a successful Reset, which revokes control, the next command asks first.
    /// The machine's final answer is returned, not thrown: rejecting is its right.
    package func send(_ command: MachineCommand, timeout: Duration = .seconds(3)) async throws -> CommandOutcome {
        await acquireGate()
        defer { releaseGate() }
        var written: [[UInt8]] = []
        if !controlGranted { try await requestControl(written: &written) }
        let model = info?.model ?? info?.name ?? device
        let range = info?.resistanceRange
        var form = await resistanceForms.form(for: model)
        if case .resistance(let level) = command, !Self.uint8Carries(range?.clamped(level) ?? level) { form = .sint16 }
        var request = command.request(form: form, range: range)
        var response = try await exchange(request, timeout: timeout, written: &written)
        if response.result == .controlNotPermitted {
            controlGranted = false
            try await requestControl(written: &written)
            response = try await exchange(request, timeout: timeout, written: &written)
        }
        if case .resistance = command, form == .uint8, response.result == .invalidParameter {
            form = .sint16
            request = command.request(form: form, range: range)
            response = try await exchange(request, timeout: timeout, written: &written)
            if response.result == .success { await resistanceForms.remember(form, for: model) }
        }
        // FTMS 1.0 §4.16.2.2: a Reset also takes control away from every client.
        if command == .reset, response.result == .success { controlGranted = false }
        return CommandOutcome(command: command, request: request.encoded(), response: response, written: written)
    }

    /// Request Control with its longer timeout; callers hold the gate.
    func requestControl(written: inout [[UInt8]]) async throws {
        let response = try await exchange(.requestControl, timeout: .seconds(5), written: &written)
        guard response.result == .success else {
            controlGranted = false
            let result = response.result.map { "\($0.jsonName)" } ?? "result \(response.rawResult ?? 0)"
            throw LinkError.controlPointRejected(operation: "request_control", result: result)
        }
        controlGranted = true
    }

    /// The spec's uint8 form holds 0.0–25.5; a level outside it can only go as sint16.
    static func uint8Carries(_ level: Double) -> Bool {
        level >= 0 && level <= 25.5
    }
}
