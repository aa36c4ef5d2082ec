import BlueZ
import Foundation

/// Which BlueZ is running, and how the doctor knows.
///
/// BlueZ 5.66 names its version nowhere on D-Bus, so the best source is the installed
/// `bluetoothd --version` (the binary systemd starts); failing that, properties later releases
/// added give a lower bound; failing that, it is unknown, and the report says so.
struct BlueZVersionFinding: Sendable, Hashable {
    var version: BlueZVersion?
    /// `true` when `version` is the exact release, `false` for a lower bound.
    var exact: Bool
    /// How it was found, for the report: `bluetoothd --version at /usr/libexec/bluetooth/bluetoothd`.
    var how: String

    static func find(candidates: [String], tree: ObjectTree?, timeout: Duration) async -> BlueZVersionFinding {
        let installed = candidates.first { FileManager.default.isExecutableFile(atPath: $0) }
        var asked: String?
        if let installed {
            switch await ProgramOutput.firstLine(of: installed, arguments: ["--version"], timeout: timeout) {
            case .success(let line):
                if let version = BlueZVersion(parsing: line) {
                    return BlueZVersionFinding(version: version, exact: true, how: "\(installed) --version")
                }
                asked = "\(installed) --version printed \"\(line)\""
            case .failure(let failure):
                asked = failure.description
            }
        }
        if let tree, let bound = BlueZVersion.lowerBound(from: tree) {
            return BlueZVersionFinding(version: bound.version, exact: false, how: bound.evidence)
        }
        let noBinary = asked ?? "no bluetoothd at \(candidates.joined(separator: ", "))"
        return BlueZVersionFinding(
            version: nil, exact: false, how: "\(noBinary); BlueZ before 5.79 names no version over D-Bus")
    }

    /// `5.66`, `at least 5.79`, or `version unknown`.
    var text: String {
        guard let version else { return "version unknown" }
        return exact ? version.description : "at least \(version)"
    }
}
