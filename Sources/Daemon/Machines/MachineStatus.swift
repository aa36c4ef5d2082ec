package import FTMS

/// One machine as `status` and `machines` report it: enough for an operator to see at a
/// glance what is connected, riding, and why something is not.
package struct MachineStatus: Sendable, Hashable, Codable {
    package var name: String
    package var address: String
    package var type: MachineType?
    package var model: String?
    package var manufacturer: String?
    package var state: MachineState
    /// The open session, if a rider is on it.
    package var sessionID: String?
    package var notifications: Int
    /// Why the last connection ended or the last attempt failed.
    package var lastError: String?
    /// A training program running on it, by training id.
    package var training: String?
    /// The adapter (`hci1`) its link goes through, or its last attempt went through.
    package var adapter: String?
    /// Why it is on that adapter, or why it waits for one (the link budget, contract §2).
    package var adapterReason: String?
    /// How its data notifications arrive: `acquired` (AcquireNotify) or `start_notify`; `nil`
    /// before the first connection is ready.
    package var notify: String?

    package init(
        name: String, address: String, type: MachineType? = nil, model: String? = nil, manufacturer: String? = nil,
        state: MachineState, sessionID: String? = nil, notifications: Int = 0, lastError: String? = nil, training: String? = nil,
        adapter: String? = nil, adapterReason: String? = nil, notify: String? = nil
    ) {
        self.adapter = adapter
        self.adapterReason = adapterReason
        self.notify = notify
        self.name = name
        self.address = address
        self.type = type
        self.model = model
        self.manufacturer = manufacturer
        self.state = state
        self.sessionID = sessionID
        self.notifications = notifications
        self.lastError = lastError
        self.training = training
    }

    enum CodingKeys: String, CodingKey {
        case name, address, type, model, manufacturer, state
        case sessionID = "session_id"
        case notifications
        case lastError = "last_error"
        case training
        case adapter
        case adapterReason = "adapter_reason"
        case notify
    }
}
