import ProcessOutput
#if canImport(Glibc)
import Glibc
#endif

/// `EAFNOSUPPORT (Address family not supported by protocol)`: the symbolic name an operator
/// can search for, and the words.
enum Errno {
    static func describe(_ code: Int32) -> String {
        let words = errnoText(code)
        return names[code].map { "\($0) (\(words))" } ?? "errno \(code) (\(words))"
    }

    private static let names: [Int32: String] = [
        EPERM: "EPERM", ENOENT: "ENOENT", EACCES: "EACCES", ENODEV: "ENODEV", EBUSY: "EBUSY", EIO: "EIO",
        EAFNOSUPPORT: "EAFNOSUPPORT", EPROTONOSUPPORT: "EPROTONOSUPPORT", ECONNREFUSED: "ECONNREFUSED",
        ETIMEDOUT: "ETIMEDOUT", ENETDOWN: "ENETDOWN", ERFKILL: "ERFKILL", ENOTSOCK: "ENOTSOCK", EAGAIN: "EAGAIN",
    ]
}
