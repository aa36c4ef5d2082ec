import BlueZ
import Foundation

/// One `org.bluez.Adapter1` as BlueZ reports it.
struct AdapterFacts: Sendable, Hashable {
    var path: String
    /// `hci0`: the last path element, which is also the kernel's name for the controller.
    var name: String
    var address: String?
    var powered: Bool?
    var discovering: Bool?
    /// `central`, `peripheral`, …; `nil` when BlueZ does not report roles.
    var roles: [String]?
    /// BlueZ 5.7x and later also export the controller's maker and HCI version.
    var manufacturer: UInt16?
    var hciVersion: UInt8?

    init(path: String, properties: ObjectTree.Properties) {
        self.path = path
        name = path.split(separator: "/").last.map(String.init) ?? path
        address = properties["Address"]?.string
        powered = properties["Powered"]?.bool
        discovering = properties["Discovering"]?.bool
        roles = properties["Roles"]?.strings
        manufacturer = properties["Manufacturer"]?.integer.flatMap(UInt16.init(exactly:))
        hciVersion = properties["Version"]?.integer.flatMap(UInt8.init(exactly:))
    }

    /// The N of `hciN`, for libbluetooth.
    var index: Int? {
        name.wholeMatch(of: /hci(\d+)/).flatMap { Int($0.1) }
    }

    static func all(in tree: ObjectTree) -> [AdapterFacts] {
        tree.paths(with: BlueZNames.adapter).compactMap { path in
            tree.properties(path, BlueZNames.adapter).map { AdapterFacts(path: path, properties: $0) }
        }.sorted { $0.name.localizedStandardCompare($1.name) == .orderedAscending }
    }
}
