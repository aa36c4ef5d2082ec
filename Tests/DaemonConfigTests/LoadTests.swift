import DaemonConfig
import Foundation
import Testing

/// `load(path:)`: the file system's failures, each its own one-line error.
@Suite("Config load")
struct LoadTests {
    @Test func readsAFile() throws {
        try withTemporaryDirectory { directory in
            let path = directory + "/config.toml"
            try "[log]\nlevel = \"debug\"\n".write(toFile: path, atomically: true, encoding: .utf8)
            let config = try DaemonConfig.load(path: path)
            #expect(config.log.level == "debug")
            #expect(config.explicitKeys == ["log.level"])
        }
    }

    @Test func errorsNameThePath() throws {
        try withTemporaryDirectory { directory in
            let path = directory + "/config.toml"
            try "[log]\nlevel = 3\n".write(toFile: path, atomically: true, encoding: .utf8)
            #expect(throws: ConfigError(.wrongType, source: path, key: "log.level", problem: "must be a string, got 3")) {
                try DaemonConfig.load(path: path)
            }
        }
    }

    @Test func refusesWhatIsNotAConfigFile() throws {
        try withTemporaryDirectory { directory in
            let fifo = directory + "/fifo"
            #expect(mkfifo(fifo, 0o600) == 0)
            let big = directory + "/big.toml"
            #expect(FileManager.default.createFile(atPath: big, contents: Data(repeating: 0x23, count: (1 << 20) + 10)))
            let cases: [(String, String)] = [
                (directory, "is a directory"),
                (fifo, "is not a regular file"),
                ("/dev/zero", "is not a regular file"),
                (big, "at most 1048576 bytes"),
                (directory + "/missing/config.toml", "does not exist"),
                ("", "the config path is empty"),
            ]
            for (path, fragment) in cases {
                #expect {
                    try DaemonConfig.load(path: path)
                } throws: { error in
                    guard let error = error as? ConfigError else { return false }
                    return error.kind == .unreadable && error.description.contains(fragment) && error.isOneLine
                }
            }
        }
    }

    @Test func aFileInsideAFileIsNotMissing() throws {
        try withTemporaryDirectory { directory in
            let file = directory + "/plain"
            try "x".write(toFile: file, atomically: true, encoding: .utf8)
            // ENOTDIR, not ENOENT: an operator's mistake, not an absent file.
            #expect(throws: ConfigError.self) { try DaemonConfig.load(path: file + "/config.toml", missingIsDefault: true) }
        }
    }
}
