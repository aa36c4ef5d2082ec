/// What `ftms-sim --peripheral` is: one machine served on one adapter of a real bluetoothd.
public struct PeripheralConfiguration: Sendable {
    /// The machine: its name is advertised, its kind picks the GATT layout and the data it streams.
    public var machine: MachineSpec
    /// The adapter whose GattManager1 and LEAdvertisingManager1 serve it, as `hci1`.
    public var adapter: String
    /// Data frames per second while a client has notifications on; 0 streams nothing.
    public var rate: Double
    public var verbose = false

    public init(machine: MachineSpec, adapter: String, rate: Double) {
        self.machine = machine
        self.adapter = adapter
        self.rate = rate
    }
}
