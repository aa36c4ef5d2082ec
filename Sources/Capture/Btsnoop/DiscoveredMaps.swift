/// The handle maps a capture's discoveries built, for a link that saw none of its own
/// (``BtsnoopReader``'s read-ahead).
struct DiscoveredMaps: Sendable {
    private(set) var byPeer: [BluetoothAddress: AttributeTable]
    /// Each controller's distinct maps. With bluetoothd on both ends each side also discovers
    /// the other's server, so a link's map holds both, and two links' maps rarely match whole.
    private var byController: [UInt16: [AttributeTable]]

    init(byPeer: [BluetoothAddress: AttributeTable], byController: [UInt16: [AttributeTable]]) {
        self.byPeer = byPeer.filter { !$0.value.isEmpty }
        self.byController = byController
    }

    mutating func add(_ table: AttributeTable, peer: BluetoothAddress?, controller: UInt16) {
        guard !table.isEmpty else { return }
        if let peer { byPeer[peer] = table }
        if byController[controller]?.contains(table) != true { byController[controller, default: []].append(table) }
    }

    /// The handle's attribute in the controller's maps, if every map that has it agrees.
    func attribute(_ handle: UInt16, controller: UInt16) -> AttributeUUID? {
        let found = (byController[controller] ?? []).compactMap { $0[handle] }
        return found.dropFirst().allSatisfy { $0 == found.first } ? found.first : nil
    }
}
