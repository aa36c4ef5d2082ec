import Foundation

extension DaemonConfig {
    /// The whole config as TOML, every key set: what `run --print-config` prints, and what
    /// ``parse(_:source:)`` reads back to an equal value. Nothing is redacted because the
    /// config holds no secret: tokens live in the state database, and a backend URL with a
    /// user or password is refused.
    package func rendered() -> String {
        var lines = ["# ftms-bridge configuration, as the daemon reads it (every key, defaults included)."]
        for table in ConfigKeys.tables {
            lines.append("")
            lines.append("[\(table)]")
            for key in ConfigKeys.all where key.table == table {
                lines.append("\(key.name) = \(key.render(self))")
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// `systemd/config.example.toml`: every table, and every key commented out at its
    /// default under its one-line documentation. Commented out, not set, so that the file
    /// installed as `/etc/ftms-bridge/config.toml` records no choice: a later release's
    /// better default still applies, and `explicitKeys` stays empty, so systemd's
    /// directories still apply. Removing a key's `#` sets it.
    package static var exampleFile: String {
        let defaults = DaemonConfig()
        var lines = [
            "# \(GatewayPaths.defaultConfigFile): the configuration of the daemon, `ftms-bridged` (`ftms-bridge run`).",
            "# The dashboard is its own process (`ftms-bridge dashboard`, ftms-bridge-dashboard.service) with",
            "# its own flags; a [dashboard] table here is refused.",
            "#",
            "# Every key is shown commented out, at its default: a missing key means its default, so",
            "# an empty file (or none) is a working gateway. Remove a key's leading '#' to set it.",
            "# Durations are seconds, an integer or a decimal (millisecond resolution).",
            "# A bad value stops the daemon with a one-line error naming the key.",
            "# docs/configuration.md describes every key.",
        ]
        for table in ConfigKeys.tables {
            lines.append("")
            lines.append("[\(table)]")
            for key in ConfigKeys.all where key.table == table {
                lines += Wrap.comment(key.summary, width: 100)
                lines.append("#\(key.name) = \(key.render(defaults))")
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// The Markdown table of ``documentedKeys`` that `docs/configuration.md` holds between
    /// its `<!-- keys:begin -->` and `<!-- keys:end -->` markers.
    package static var keyTableMarkdown: String {
        var lines = ["| Key | Type | Default | Meaning |", "| --- | --- | --- | --- |"]
        for key in documentedKeys {
            let summary = key.summary.replacingOccurrences(of: "|", with: "\\|")
            lines.append("| `\(key.key)` | \(key.type) | `\(key.defaultValue)` | \(summary) |")
        }
        return lines.joined(separator: "\n") + "\n"
    }
}

/// Word wrap for comments in the example file.
enum Wrap {
    static func comment(_ text: String, width: Int) -> [String] {
        var lines: [String] = []
        var line = "#"
        for word in text.split(separator: " ") {
            if line.count + 1 + word.count > width, line != "#" {
                lines.append(line)
                line = "#"
            }
            line += " " + word
        }
        lines.append(line)
        return lines
    }
}
