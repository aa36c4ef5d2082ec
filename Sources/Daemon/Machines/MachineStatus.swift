public import FTMS

/// One machine as `status` and `machines` report it: enough for an operator to see at a
/// glance what is connected, riding, and why something is not.
public struct MachineStatus: Sendable, Hashable, Codable {
    public var name: String
    public var address: String
    public var type: MachineType?
    public var model: String?
    public var manufacturer: String?
    public var state: MachineState
    /// The open session, if a rider is on it.
    public var sessionID: String?
    public var notifications: Int
    /// Why the last connection ended or the last attempt failed.
    public var lastError: String?
    /// A training program running on it, by training id.
    public var training: String?
    /// The adapter (`hci1`) its link goes through, or its last attempt went through.
    public var adapter: String?
    /// Why it is on that adapter, or why it waits for one (the link budget, issue 15).
    public var adapterReason: String?
    /// How its data notifications arrive: `acquired` (AcquireNotify) or `start_notify`; `nil`
    /// before the first connection is ready.
    public var notify: String?

    public init(
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
