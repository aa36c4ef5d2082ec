import JSON

/// The last line of defence for secrets in the report.
///
/// No check puts a token in a result on purpose, but details quote other programs' errors
/// (a backend's message, a URL from the config), and an operator pastes the report into a
/// ticket. So the rendered report is scrubbed of every secret the doctor knows of (the stored
/// access and refresh tokens) and of the password part of any `scheme://user:password@host`.
package struct SecretRedactor: Sendable {
    package static let mask = "[redacted]"
    /// Secrets shorter than this are not searched for: replacing every "a" would wreck the
    /// report and protect nothing.
    static let shortestSecret = 8
    private let secrets: [String]

    package init(secrets: [String]) {
        // Longest first, so a secret containing another is replaced whole.
        self.secrets = Set(secrets.filter { $0.count >= Self.shortestSecret }).sorted { $0.count > $1.count }
    }

    package func redact(_ text: String) -> String {
        var result = Self.redactURLPasswords(text)
        for secret in secrets where result.contains(secret) {
            result = result.replacing(secret, with: Self.mask)
        }
        return result
    }

    /// `https://gym:hunter2@api.example.com` → `https://gym:[redacted]@api.example.com`.
    static func redactURLPasswords(_ text: String) -> String {
        text.replacing(/(?<head>[A-Za-z][A-Za-z0-9+.-]*:\/\/[^\s\/@:]+:)[^\s\/@]+@/) { match in
            "\(match.output.head)\(mask)@"
        }
    }
}

extension DoctorReport {
    /// The report with every string in it (details, hints, data) passed through `redactor`,
    /// before it is rendered as text or JSON, so escaping can never hide a secret from it.
    package func redacted(by redactor: SecretRedactor) -> DoctorReport {
        DoctorReport(version: version, checks: checks.map { check in
            var clean = check
            clean.detail = redactor.redact(check.detail)
            clean.hint = check.hint.map(redactor.redact)
            clean.data = check.data.mapValues { redactor.redact($0) }
            return clean
        })
    }
}

extension SecretRedactor {
    func redact(_ value: JSONValue) -> JSONValue {
        switch value {
        case .string(let text): .string(redact(text))
        case .array(let items): .array(items.map(redact))
        case .object(let fields): .object(fields.mapValues(redact))
        case .integer, .number, .bool, .null: value
        }
    }
}
