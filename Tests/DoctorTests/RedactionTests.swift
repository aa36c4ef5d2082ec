import Clocks
import TestSupport
import Doctor
import Foundation
import Store
import Testing
import Workout

/// Tokens never leave the doctor: not in the text, not in the JSON, not even when another
/// program's message quotes them.
@Suite("Secrets are redacted")
struct RedactionTests {
    static let access = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJneW0tNDIifQ.access-signature-AAAA"
    static let refresh = "rt_9f8e7d6c5b4a39281706f5e4d3c2b1a0-refresh"

    @Test func storedTokensNeverAppearInTextOrJSON() async throws {
        let directory = try TemporaryDirectory()
        let store = try GatewayStore(directory: directory.file("state"), clock: WallClock { Fixed.now })
        try await store.saveTokens(
            StoredTokens(accessToken: Self.access, refreshToken: Self.refresh, issuedAt: Fixed.now, expiresAt: Fixed.now.adding(seconds: 1800)),
            userProfile: #"{"name":"Gym 42"}"#)
        try store.close()
        var inputs = DoctorInputs.isolated(in: directory)
        // A backend URL that carries both tokens: the backend check quotes its URL.
        inputs.backendURL = "http://gym:\(Self.refresh)@127.0.0.1:\(try TestListener.closedPort())/?token=\(Self.access)"
        let report = await Doctor(inputs: inputs).run()
        #expect(report.check("login")?.status == .ok)
        #expect(report.check("backend")?.detail.contains("[redacted]") == true)
        for output in [report.text, report.json] {
            #expect(!output.contains(Self.access))
            #expect(!output.contains(Self.refresh))
            #expect(!output.contains("access-signature"))
        }
    }

    @Test func urlPasswordsAndKnownSecretsAreMasked() {
        let redactor = SecretRedactor(secrets: ["supersecret-token", "short"])
        #expect(redactor.redact("https://gym:hunter2@api.example.com/x") == "https://gym:[redacted]@api.example.com/x")
        #expect(redactor.redact("Bearer supersecret-token and supersecret-token") == "Bearer [redacted] and [redacted]")
        // Too short to hunt for without wrecking the text.
        #expect(redactor.redact("a short line") == "a short line")
    }
}
