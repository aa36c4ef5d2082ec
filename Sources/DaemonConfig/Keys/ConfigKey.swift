/// One key of the file: where it lives, how it reads and writes, and its documentation.
///
/// The list of these (``ConfigKeys/all``) is the single source for parsing, ``DaemonConfig/rendered()``,
/// the example file and the key table in `docs/configuration.md`; tests hold the committed
/// files to it, so a key cannot be added in one place and forgotten in another.
struct ConfigKey: Sendable {
    let table: String
    let name: String
    /// As the docs say it: "seconds", "array of strings".
    let type: String
    /// One line for the operator.
    let summary: String
    let read: @Sendable (ConfigValue, inout DaemonConfig) throws(ValueProblem) -> Void
    /// The value as a TOML literal.
    let render: @Sendable (DaemonConfig) -> String

    var path: String { "\(table).\(name)" }

    init<Value>(
        _ table: String, _ name: String, _ type: String, _ summary: String,
        _ field: any WritableKeyPath<DaemonConfig, Value> & Sendable,
        read: @escaping @Sendable (ConfigValue) throws(ValueProblem) -> Value,
        render: @escaping @Sendable (Value) -> String
    ) {
        self.init(table, name, type, summary, \DaemonConfig.self, field, read: read, render: render)
    }

    /// A key of a nested value both sockets share: `group` of `controlSocket`.
    init<Outer, Value>(
        _ table: String, _ name: String, _ type: String, _ summary: String,
        _ outer: any WritableKeyPath<DaemonConfig, Outer> & Sendable, _ field: any WritableKeyPath<Outer, Value> & Sendable,
        read: @escaping @Sendable (ConfigValue) throws(ValueProblem) -> Value,
        render: @escaping @Sendable (Value) -> String
    ) {
        self.table = table
        self.name = name
        self.type = type
        self.summary = summary
        self.read = { (value, config) throws(ValueProblem) in config[keyPath: outer][keyPath: field] = try read(value) }
        self.render = { config in render(config[keyPath: outer][keyPath: field]) }
    }
}

/// A key as the documentation lists it.
package struct ConfigKeyDocumentation: Sendable, Equatable {
    /// Dotted: `sessions.pause_after_idle`.
    package let key: String
    package let type: String
    /// The default as a TOML literal: `6`, `"info"`, `[]`.
    package let defaultValue: String
    package let summary: String
}

extension DaemonConfig {
    /// Every key the file may set, in file order, with its type, default and meaning.
    package static var documentedKeys: [ConfigKeyDocumentation] {
        let defaults = DaemonConfig()
        return ConfigKeys.all.map { key in
            ConfigKeyDocumentation(key: key.path, type: key.type, defaultValue: key.render(defaults), summary: key.summary)
        }
    }
}
