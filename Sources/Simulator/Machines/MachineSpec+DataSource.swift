public import FTMS

/// Where a machine's frames come from: the one place the choice is made.
extension MachineSpec {
    /// Its recorded ride when it has one, else a rider seeded by the spec.
    func dataSource() -> any MachineDataSource {
        if let ride { return ride }
        return RiderModel(type: kind == .rower ? .rower : .bike, seed: seed)
    }
}

extension MachineSpec.Kind {
    /// The data characteristic its GATT notifies, `nil` for kinds without GATT.
    public var dataCharacteristic: Characteristic? {
        guard hasGatt else { return nil }
        return self == .rower ? .rowerData : .indoorBikeData
    }
}
