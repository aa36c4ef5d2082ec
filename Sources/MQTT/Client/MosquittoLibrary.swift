import CMosquitto

/// `mosquitto_lib_init` must run once per process before the first `mosquitto_new`; a
/// global `let` is initialised exactly once, thread-safely, on first use.
enum MosquittoLibrary {
    private static let initialised: Int32 = mosquitto_lib_init()

    static func ensureInitialised() {
        _ = initialised
    }

    /// libmosquitto's text for one of its error codes.
    static func text(_ code: Int32) -> String {
        String(cString: mosquitto_strerror(code))
    }

    /// libmosquitto's text for a CONNACK code (`Connection Refused: not authorised.`), without
    /// the trailing full stop so it reads inside a log line.
    static func connackText(_ code: Int32) -> String {
        var text = String(cString: mosquitto_connack_string(code))
        if text.hasSuffix(".") { text.removeLast() }
        return text
    }
}
