/// A failed answer: its code and its one-line message.
package struct ControlFailure: Error, Sendable, Equatable, CustomStringConvertible {
    package var code: ControlErrorCode
    package var message: String

    package init(code: ControlErrorCode, message: String) {
        self.code = code
        self.message = Self.oneLine(message)
    }

    package var description: String { "\(message) (\(code))" }

    /// The longest message kept, in characters: an answer is one line a person reads.
    static let maximumMessageLength = 1000

    /// Control characters (newlines among them) become spaces, so a handler that passes on a
    /// multi-line error from elsewhere still answers one line.
    static func oneLine(_ text: String) -> String {
        var line = String(String.UnicodeScalarView(text.unicodeScalars.map { $0.properties.generalCategory == .control ? " " : $0 }))
        if line.count > maximumMessageLength { line = String(line.prefix(maximumMessageLength)) + "…" }
        return line
    }
}
