/// How long the simulated radio and controller take. Real BlueZ takes hundreds of
/// milliseconds for most of these; the defaults are short so tests run fast while every
/// reply-after-signal ordering still holds.
public struct SimulatorTiming: Sendable, Equatable {
    /// Connect() until the link is up (and the reply).
    public var connect: Duration = .milliseconds(30)
    /// Link up until ServicesResolved (GATT browsing, or cache validation).
    public var resolve: Duration = .milliseconds(40)
    /// Disconnect() until the link is down.
    public var disconnect: Duration = .milliseconds(5)
    /// StartDiscovery until the first machine's advertisement is seen.
    public var firstAdvertisement: Duration = .milliseconds(40)
    /// Added per further machine, so they appear one by one.
    public var advertisementSpread: Duration = .milliseconds(15)
    /// How often a discovering adapter hears each machine again (RSSI updates).
    public var rssiInterval: Duration = .milliseconds(500)
    /// Connect() to a machine that is off or asleep until it fails: the controller's LE
    /// connection attempt timing out (real controllers take seconds).
    public var connectUnanswered: Duration = .seconds(2)
    /// `TemporaryTimeout`: a never-connected device unseen this long is removed.
    public var temporaryTimeout: Duration = .seconds(30)

    public init() {}
}
