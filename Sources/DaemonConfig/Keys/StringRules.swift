import Foundation

/// The rules string values must follow. Each throws a problem that reads after the key:
/// "must be an absolute path, got …".
enum StringRules {
    /// `sun_path` holds 108 bytes with its terminating NUL.
    static let maximumSocketPathBytes = 107
    static let logLevels = ["trace", "debug", "info", "notice", "warning", "error", "critical"]

    static func absolutePath(_ text: String) throws(ValueProblem) {
        guard text.hasPrefix("/") else { throw .invalid("must be an absolute path, got \(OneLine.quoted(text))") }
        guard !text.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw .invalid("must not contain control characters, got \(OneLine.quoted(text))")
        }
    }

    static func socketPath(_ text: String) throws(ValueProblem) {
        try absolutePath(text)
        guard !text.hasSuffix("/") else { throw .invalid("must name a socket file, not a directory, got \(OneLine.quoted(text))") }
        guard text.utf8.count <= maximumSocketPathBytes else {
            throw .invalid("must be at most \(maximumSocketPathBytes) bytes (the Unix socket limit), got \(text.utf8.count)")
        }
    }

    /// A group name as `groupadd` takes it (or a numeric id); empty means the daemon's own.
    static func groupName(_ text: String) throws(ValueProblem) {
        guard !text.isEmpty else { return }
        let allowed = text.utf8.allSatisfy { byte in
            byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".")
                || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
                || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
        }
        guard allowed, !text.hasPrefix("-"), text.utf8.count <= 32 else {
            throw .invalid("must be a group name (letters, digits, _ - ., at most 32), got \(OneLine.quoted(text))")
        }
    }

    /// A machine's advertised name or its address: what `scan` prints.
    static func machine(_ text: String) throws(ValueProblem) {
        guard !text.isEmpty else { throw .invalid("must not be empty") }
        guard text.trimmingCharacters(in: .whitespaces) == text else {
            throw .invalid("must not start or end with spaces, got \(OneLine.quoted(text))")
        }
        guard !text.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw .invalid("must not contain control characters, got \(OneLine.quoted(text))")
        }
        // Bluetooth LE names are at most 248 bytes.
        guard text.utf8.count <= 248 else { throw .invalid("must be at most 248 bytes (a Bluetooth name), got \(text.utf8.count)") }
    }

    /// BlueZ names its adapters hci0, hci1…
    static func adapter(_ text: String) throws(ValueProblem) {
        guard text.hasPrefix("hci"), text.count > 3, text.count <= 8, text.dropFirst(3).allSatisfy(\.isASCIIDigit) else {
            throw .invalid("must be an adapter name such as \"hci0\", got \(OneLine.quoted(text))")
        }
    }

    /// An http or https base URL with a host and nothing that could be a secret.
    static func backendURL(_ text: String) throws(ValueProblem) {
        guard !text.isEmpty else { return }
        guard let url = URLComponents(string: text), let scheme = url.scheme?.lowercased() else {
            throw .invalid("must be an http:// or https:// URL, got \(OneLine.quoted(text))")
        }
        guard scheme == "http" || scheme == "https" else {
            throw .invalid("must use http or https, got \(OneLine.quoted(scheme))")
        }
        guard let host = url.host, !host.isEmpty else { throw .invalid("must name a host, got \(OneLine.quoted(text))") }
        guard url.user == nil, url.password == nil else {
            throw .invalid("must not carry a user or password (the login lives in the state database)")
        }
        guard url.query == nil, url.fragment == nil else {
            throw .invalid("must be a base URL without ?query or #fragment, got \(OneLine.quoted(text))")
        }
        if let port = url.port, !(1...65535).contains(port) {
            throw .invalid("must have a port from 1 to 65535, got \(port)")
        }
    }

    /// The `{provider}` of `POST /auth/sso/{provider}`.
    static func provider(_ text: String) throws(ValueProblem) {
        let allowed = !text.isEmpty && text.utf8.allSatisfy { byte in
            byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_")
                || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
        }
        guard allowed else { throw .invalid("must be lowercase letters, digits, - or _ (google, apple), got \(OneLine.quoted(text))") }
    }

    static func timeZone(_ text: String) throws(ValueProblem) {
        guard !text.isEmpty else { return }
        // IANA names only (Area/Location, UTC, Etc/GMT+3): Foundation may look a name up as
        // a file under /usr/share/zoneinfo, so no "..", no leading "/", no other characters.
        let shaped = text.utf8.count <= 64 && !text.hasPrefix("/") && !text.contains("..")
            && text.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "/_-+".contains($0)) }
        guard shaped, TimeZone(identifier: text) != nil else {
            throw .invalid("must be an IANA time zone such as \"Europe/Berlin\" (or empty for the system's), got \(OneLine.quoted(text))")
        }
    }

    static func logLevel(_ text: String) throws(ValueProblem) {
        guard logLevels.contains(text) else {
            throw .invalid("must be one of \(logLevels.joined(separator: ", ")), got \(OneLine.quoted(text))")
        }
    }

    static func listenAddress(_ text: String) throws(ValueProblem) {
        _ = try LoopbackListenAddress(parsing: text)
    }

    /// A D-Bus address list: `transport:key=value,…` entries separated by `;`.
    static func busAddress(_ text: String) throws(ValueProblem) {
        guard !text.isEmpty else { return }
        for entry in text.split(separator: ";", omittingEmptySubsequences: true) {
            let transport = entry.prefix(while: { $0 != ":" })
            guard transport.count < entry.count, !transport.isEmpty,
                  transport.allSatisfy({ $0.isASCII && ($0.isLetter || $0 == "-") }),
                  !entry.unicodeScalars.contains(where: { $0.properties.generalCategory == .control || $0 == " " })
            else {
                throw .invalid("must be a D-Bus address such as \"unix:path=/run/dbus/system_bus_socket\", got \(OneLine.quoted(text))")
            }
        }
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { isASCII && isNumber }
}
