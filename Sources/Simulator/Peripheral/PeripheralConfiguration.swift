/// What `ftms-sim --peripheral` is: one machine served on one adapter of a real bluetoothd.
public struct PeripheralConfiguration: Sendable {
    /// The machine: its name is advertised, its kind picks the GATT layout and the data it streams.
    public var machine: MachineSpec
    /// The adapter whose GattManager1 and LEAdvertisingManager1 serve it, as `hci1`.
    public var adapter: String
    /// Data frames per second while a client has notifications on; 0 streams nothing.
    public var rate: Double
    public var verbose = false

    /// Where the machine's services start in bluetoothd's database: 0x0100 for `hci0`, 0x0200 for
    /// `hci1` and so on, so that machines served on several adapters of one bluetoothd keep
    /// their handles, apart, across its restarts (see ``PeripheralTree``).
    var firstHandle: UInt16 {
        let index = UInt16(adapter.drop { !$0.isNumber }) ?? 0
        return 0x0100 * (min(index, 0xFE) + 1)
    }

    public init(machine: MachineSpec, adapter: String, rate: Double) {
        self.machine = machine
        self.adapter = adapter
        self.rate = rate
    }
}
