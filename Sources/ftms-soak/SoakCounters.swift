import BlueZ

/// What the machines did during the soak: evidence that the load was real.
actor SoakCounters {
    private(set) var notifications = 0
    private(set) var readies = 0
    private(set) var drops = 0
    private(set) var commandsSucceeded = 0
    private(set) var commandsFailed = 0

    func record(_ event: SupervisorEvent) {
        switch event {
        case .notification: notifications += 1
        case .ready: readies += 1
        default: break
        }
    }

    func dropped() { drops += 1 }

    func command(succeeded: Bool) {
        if succeeded { commandsSucceeded += 1 } else { commandsFailed += 1 }
    }
}
