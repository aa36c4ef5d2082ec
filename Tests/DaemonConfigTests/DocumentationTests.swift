import DaemonConfig
import Foundation
import Testing

/// `systemd/config.example.toml` and the key table of `docs/configuration.md` are the key
/// table in the code, written out. Set `FTMS_WRITE_CONFIG_DOCS=1` to rewrite both after
/// changing a key, then review the diff.
@Suite("Config documentation")
struct DocumentationTests {
    static let examplePath = "systemd/config.example.toml"
    static let docsPath = "docs/configuration.md"
    static let begin = "<!-- keys:begin -->\n"
    static let end = "<!-- keys:end -->"
    static let rewrite = ProcessInfo.processInfo.environment["FTMS_WRITE_CONFIG_DOCS"] == "1"

    @Test func theExampleFileIsTheKeyTable() throws {
        if Self.rewrite { try Repository.write(Self.examplePath, DaemonConfig.exampleFile) }
        let example = try Repository.read(Self.examplePath)
        #expect(example == DaemonConfig.exampleFile, "run with FTMS_WRITE_CONFIG_DOCS=1 to rewrite \(Self.examplePath)")
    }

    /// Installed as it is, the example sets nothing: every key is its default.
    @Test func theExampleParsesToTheDefaults() throws {
        let config = try DaemonConfig.parse(Repository.read(Self.examplePath), source: Self.examplePath)
        #expect(config == DaemonConfig())
        #expect(config.explicitKeys.isEmpty)
    }

    /// Every commented-out key, uncommented, is the default it claims: no example line lies.
    @Test func everyExampleLineUncommentedIsItsDefault() throws {
        let example = try Repository.read(Self.examplePath)
        let uncommented = example.split(separator: "\n", omittingEmptySubsequences: false).map { line in
            line.hasPrefix("#") && !line.hasPrefix("# ") && line != "#" ? line.dropFirst() : line
        }.joined(separator: "\n")
        let config = try DaemonConfig.parse(uncommented, source: Self.examplePath)
        #expect(config == DaemonConfig())
        #expect(config.explicitKeys == Set(DaemonConfig.documentedKeys.map(\.key)))
    }

    @Test func theDocsHoldTheKeyTable() throws {
        var docs = try Repository.read(Self.docsPath)
        let range = try #require(docs.range(of: Self.begin).flatMap { start in
            docs.range(of: Self.end, range: start.upperBound..<docs.endIndex).map { start.upperBound..<$0.lowerBound }
        }, "\(Self.docsPath) needs \(Self.begin) and \(Self.end) markers")
        if Self.rewrite {
            docs.replaceSubrange(range, with: DaemonConfig.keyTableMarkdown)
            try Repository.write(Self.docsPath, docs)
            docs = try Repository.read(Self.docsPath)
        }
        let table = try #require(docs.range(of: Self.begin).map { docs[$0.upperBound...] }?.components(separatedBy: Self.end).first)
        #expect(table == DaemonConfig.keyTableMarkdown, "run with FTMS_WRITE_CONFIG_DOCS=1 to rewrite the table in \(Self.docsPath)")
    }

    /// Belt and braces over the generated text: each key by name, its type and default, in
    /// both files.
    @Test func everyKeyAppearsInBothFiles() throws {
        let example = try Repository.read(Self.examplePath)
        let docs = try Repository.read(Self.docsPath)
        for key in DaemonConfig.documentedKeys {
            let name = String(key.key.split(separator: ".").last ?? "")
            #expect(example.contains("\n#\(name) = \(key.defaultValue)\n"), "\(key.key) in the example")
            #expect(docs.contains("| `\(key.key)` | \(key.type) | `\(key.defaultValue)` |"), "\(key.key) in the docs")
        }
    }
}
