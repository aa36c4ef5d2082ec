/// Parameters whose values are enumerations get their spec names in JSON.
public enum ValueNaming: Sendable {
    case none
    case stopOrPause
    case spinDownControl
    case spinDownStatus

    public func name(of raw: Int32) -> StaticString? {
        switch (self, raw) {
        case (.stopOrPause, 1): "stop"
        case (.stopOrPause, 2): "pause"
        case (.spinDownControl, 1): "start"
        case (.spinDownControl, 2): "ignore"
        case (.spinDownStatus, 1): "spin_down_requested"
        case (.spinDownStatus, 2): "success"
        case (.spinDownStatus, 3): "error"
        case (.spinDownStatus, 4): "stop_pedaling"
        default: nil
        }
    }
}
