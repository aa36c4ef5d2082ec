/// Why a capture could not be read past some point, in one line.
///
/// It always says where: the byte offset of the damaged btsnoop record, or the `.ftmscap`
/// line (and column when the JSON itself is broken), so a support engineer can open the file
/// at that place. Everything before that place has already been delivered as events.
public struct CaptureError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Location: Sendable, Equatable {
        case byteOffset(Int)
        case line(Int, column: Int?)
    }

    public let location: Location
    public let reason: String

    public init(_ location: Location, _ reason: String) {
        self.location = location
        self.reason = reason
    }

    public var description: String {
        switch location {
        case .byteOffset(let offset): "btsnoop byte offset \(offset): \(reason)"
        case .line(let line, column: nil): "ftmscap line \(line): \(reason)"
        case .line(let line, column: let column?): "ftmscap line \(line), column \(column): \(reason)"
        }
    }
}
