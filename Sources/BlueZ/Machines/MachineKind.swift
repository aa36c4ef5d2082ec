/// Which kind of SolidFocus machine a device is.
public enum MachineKind: String, Sendable, Codable, CaseIterable {
    case bike
    case rower
    /// Not yet known: decided by the data characteristic once connected (contract §2).
    case unknown

    /// From the name prefix (contract §2): `SF-Bike-…` or `SF-Rower-…`.
    public init(name: String?) {
        if name?.hasPrefix("SF-Bike-") == true {
            self = .bike
        } else if name?.hasPrefix("SF-Rower-") == true {
            self = .rower
        } else {
            self = .unknown
        }
    }
}
