import JSON
import FoundationEssentials

/// What a login's `id_token` says about the user.
///
/// A reference backend cannot check Apple's or Google's signatures offline, so it takes the
/// token's word for who the user is, in two forms (docs/backend-api.md, "Id tokens"):
/// `test:<subject>`, and an unsigned (or any-signed) JWT whose payload has `sub` and, if
/// present, an `exp` that has not passed.
struct IDToken: Sendable, Hashable {
    let subject: String
    let email: String?
    let name: String?

    struct Refusal: Error, Equatable {
        let message: String
    }

    static func read(_ text: String, now: Double) -> Result<IDToken, Refusal> {
        if text.hasPrefix("test:") {
            let subject = String(text.dropFirst(5))
            guard Self.isUsable(subject) else { return .failure(Refusal(message: "id token test:<subject> has no usable subject")) }
            return .success(IDToken(subject: subject, email: nil, name: nil))
        }
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let bytes = Base64URL.decode(parts[1]),
            let payload = try? JSONReader.read(Array(bytes)), payload.isObject
        else { return .failure(Refusal(message: "id token is neither test:<subject> nor a JWT")) }
        guard let subject = payload["sub"]?.string, Self.isUsable(subject) else {
            return .failure(Refusal(message: "id token has no sub claim"))
        }
        if let exp = payload["exp"] {
            guard let seconds = exp.integer else { return .failure(Refusal(message: "id token exp is not a number")) }
            guard Double(seconds) > now else { return .failure(Refusal(message: "id token has expired")) }
        }
        return .success(IDToken(subject: subject, email: payload["email"]?.string, name: payload["name"]?.string))
    }

    /// 1 to 255 characters, none of them control characters (subjects appear in admin output).
    private static func isUsable(_ subject: String) -> Bool {
        !subject.isEmpty && subject.count <= 255 && !subject.unicodeScalars.contains { $0.properties.generalCategory == .control }
    }
}
