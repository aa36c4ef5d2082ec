/// Handle → attribute UUID, read once per notification, so it must be cheap.
///
/// GATT servers number their attributes from 1 upwards and small machines stay well under a
/// few hundred handles, so low handles live in a directly indexed array (one bounds check and
/// a load, no hashing); the rare high handle goes to a dictionary.
struct AttributeTable: Sendable, Equatable {
    static let denseLimit: UInt16 = 0x400

    private var dense: [AttributeUUID?] = []
    private var sparse: [UInt16: AttributeUUID] = [:]

    init() {}

    init(_ map: [UInt16: AttributeUUID]) {
        for (handle, uuid) in map { self[handle] = uuid }
    }

    var isEmpty: Bool { dense.isEmpty && sparse.isEmpty }

    subscript(handle: UInt16) -> AttributeUUID? {
        get {
            if handle < Self.denseLimit {
                let index = Int(handle)
                return index < dense.count ? dense[index] : nil
            }
            return sparse.isEmpty ? nil : sparse[handle]
        }
        set {
            guard handle < Self.denseLimit else {
                sparse[handle] = newValue
                return
            }
            let index = Int(handle)
            if index >= dense.count {
                guard newValue != nil else { return }
                dense.append(contentsOf: repeatElement(nil, count: index + 1 - dense.count))
            }
            dense[index] = newValue
        }
    }
}
