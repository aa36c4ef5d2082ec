extension DaemonConfig {
    /// Reads a config from TOML text. `source` names it in errors (the file's path).
    ///
    /// Every key is optional; an unknown table or key, a value of the wrong type or out of
    /// range, a TOML syntax error (including a duplicate key) is a ``ConfigError`` naming the
    /// key. ``explicitKeys`` records the keys the text set.
    package static func parse(_ text: String, source: String = "config") throws(ConfigError) -> DaemonConfig {
        try ConfigText.check(text, source: source)
        let document = try TOMLDocument.parse(text, source: source)
        var config = DaemonConfig()
        for (name, value) in document {
            if let replacement = ConfigKeys.retired[name] {
                throw ConfigError(.unknownTable, source: source, key: name, problem: replacement)
            }
            guard ConfigKeys.tables.contains(name) else { throw unknown(name, in: nil, source: source) }
            guard case .table(let entries) = value else {
                throw ConfigError(.wrongType, source: source, key: name, problem: "must be a table ([\(name)]), got \(value.shown)")
            }
            for (keyName, keyValue) in entries {
                let path = "\(name).\(keyName)"
                guard let key = ConfigKeys.named(path) else { throw unknown(keyName, in: name, source: source) }
                do {
                    try key.read(keyValue, &config)
                } catch {
                    throw ConfigError(error.kind, source: source, key: path, problem: error.message)
                }
                config.explicitKeys.insert(path)
            }
        }
        try config.checkAcrossKeys(source: source)
        return config
    }

    /// Reads a config from raw bytes: refuses anything that is not UTF-8 text of a sane size
    /// before TOML sees it.
    package static func parse(bytes: some Collection<UInt8>, source: String = "config") throws(ConfigError) -> DaemonConfig {
        try parse(ConfigText.decode(bytes, source: source), source: source)
    }

    /// Reads the file at `path`. A missing file is an error: an operator who names a file
    /// means it.
    package static func load(path: String) throws(ConfigError) -> DaemonConfig {
        try load(path: path, missingIsDefault: false)
    }

    /// Reads the file at `path`; with `missingIsDefault`, a file that does not exist gives the
    /// defaults (the daemon without `--config` on a box where nobody wrote one).
    package static func load(path: String, missingIsDefault: Bool) throws(ConfigError) -> DaemonConfig {
        switch try ConfigFile.read(path) {
        case .bytes(let bytes):
            return try parse(bytes: bytes, source: path)
        case .missing:
            guard missingIsDefault else { throw ConfigError(.unreadable, source: path, problem: "does not exist") }
            return DaemonConfig()
        }
    }

    private static func unknown(_ name: String, in table: String?, source: String) -> ConfigError {
        guard let table else {
            let hint = NearestName.suggestion(for: name, among: ConfigKeys.tables).map { " (did you mean [\($0)]?)" }
                ?? "; the tables are " + ConfigKeys.tables.map { "[\($0)]" }.joined(separator: ", ")
            return ConfigError(.unknownTable, source: source, key: name, problem: "unknown table" + hint)
        }
        let names = ConfigKeys.all.filter { $0.table == table }.map(\.name)
        let hint = NearestName.suggestion(for: name, among: names).map { " (did you mean \(table).\($0)?)" }
            ?? "; [\(table)] has " + names.joined(separator: ", ")
        return ConfigError(.unknownKey, source: source, key: "\(table).\(name)", problem: "unknown key" + hint)
    }

    /// Rules between keys: each key alone was fine.
    private func checkAcrossKeys(source: String) throws(ConfigError) {
        if metricsSocket.path == controlSocket.path {
            let key = explicitKeys.contains("control_socket.path") ? "control_socket.path" : "metrics_socket.path"
            throw ConfigError(.invalidValue, source: source, key: key, problem: "must differ from the other socket's path, got \(OneLine.quoted(controlSocket.path))")
        }
        // A lease no longer than the heartbeat would expire every gateway between two beats.
        if fleet.lease <= fleet.heartbeat {
            let key = explicitKeys.contains("fleet.lease") ? "fleet.lease" : "fleet.heartbeat"
            throw ConfigError(.invalidValue, source: source, key: key, problem: "fleet.lease must be longer than fleet.heartbeat, got \(TOMLLiteral.seconds(fleet.lease)) and \(TOMLLiteral.seconds(fleet.heartbeat))")
        }
    }
}
