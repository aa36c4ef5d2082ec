import BlueZ

/// A BlueZ release number (`5.66`), comparable, so "5.66 or newer" is a comparison.
struct BlueZVersion: Sendable, Hashable, Comparable, CustomStringConvertible {
    var major: Int
    var minor: Int

    /// Debian 12's BlueZ: what the daemon is written and tested against (docs/bluez.md).
    static let minimum = BlueZVersion(major: 5, minor: 66)

    init(major: Int, minor: Int) {
        self.major = major
        self.minor = minor
    }

    /// `5.66`, or the first such number in a line such as `bluetoothd 5.66`.
    init?(parsing text: String) {
        guard let match = text.firstMatch(of: /(\d+)\.(\d+)/), let major = Int(match.1), let minor = Int(match.2) else {
            return nil
        }
        self.init(major: major, minor: minor)
    }

    var description: String { "\(major).\(minor)" }

    static func < (lhs: BlueZVersion, rhs: BlueZVersion) -> Bool {
        (lhs.major, lhs.minor) < (rhs.major, rhs.minor)
    }

    /// BlueZ 5.66 names no version over D-Bus, but later releases added properties and
    /// interfaces (docs/bluez.md, "BlueZ 5.66 and newer"); the newest one present is a lower bound.
    static func lowerBound(from tree: ObjectTree) -> (version: BlueZVersion, evidence: String)? {
        let marks: [(BlueZVersion, String, (ObjectTree) -> Bool)] = [
            (BlueZVersion(major: 5, minor: 84), "org.bluez.Bearer.LE1 present", { !$0.paths(with: "org.bluez.Bearer.LE1").isEmpty }),
            (BlueZVersion(major: 5, minor: 80), "Device1.PreferredBearer present", { Self.anyObject($0, BlueZNames.device, has: "PreferredBearer") }),
            (BlueZVersion(major: 5, minor: 79), "Adapter1.Connectable present", { Self.anyObject($0, BlueZNames.adapter, has: "Connectable") }),
        ]
        return marks.first { $0.2(tree) }.map { ($0.0, $0.1) }
    }

    private static func anyObject(_ tree: ObjectTree, _ interface: String, has property: String) -> Bool {
        tree.paths(with: interface).contains { tree.properties($0, interface)?[property] != nil }
    }
}
