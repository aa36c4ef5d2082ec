/// What happened to an attribute value, as `.ftmscap` spells it in `op`.
///
/// Writes keep no request/command distinction: replay feeds values to the decoder, and the
/// decoder does not care how a Control Point request travelled.
public enum AttributeOperation: String, Sendable, Hashable, CaseIterable {
    case notify
    case indicate
    case read
    case write
}
