/// Why a config file was refused: one line naming the file, the key and what was wrong, e.g.
/// `config.toml: sessions.pause_after_idle: must be a number of seconds greater than 0, got -3`.
///
/// The daemon prints it and refuses to start, so it must read well in `journalctl` on its own:
/// control characters from the file (or its name) never reach the line.
package struct ConfigError: Error, CustomStringConvertible, Equatable, Sendable {
    package enum Kind: Sendable, Equatable {
        /// The file could not be read: missing, a directory, permissions, too large.
        case unreadable
        /// The bytes are not text: not UTF-8, or a NUL.
        case notText
        /// TOML syntax, including duplicate keys and tables.
        case syntax
        /// A table this daemon does not have.
        case unknownTable
        /// A key its table does not have.
        case unknownKey
        /// A value of the wrong TOML type.
        case wrongType
        /// A value of the right type that is not allowed.
        case invalidValue
    }

    package var kind: Kind
    /// The file's path, or the `source` given to ``DaemonConfig/parse(_:source:)``.
    package var source: String
    /// The dotted key (`sessions.pause_after_idle`) or table (`sessions`), when one is to blame.
    package var key: String?
    /// The line, when TOMLKit reports one (syntax errors).
    package var line: Int?
    /// What was wrong, without the file or the key.
    package var problem: String

    package init(_ kind: Kind, source: String, key: String? = nil, line: Int? = nil, problem: String) {
        self.kind = kind
        self.source = source
        self.key = key
        self.line = line
        self.problem = problem
    }

    package var description: String {
        var text = source
        if let line { text += ":\(line)" }
        if let key { text += ": \(key)" }
        text += ": \(problem)"
        return OneLine.flatten(text)
    }
}
