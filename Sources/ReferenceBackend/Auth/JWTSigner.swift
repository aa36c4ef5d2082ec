import Crypto
import FoundationEssentials

/// HS256 JSON Web Tokens (RFC 7519 with an RFC 7515 compact serialisation).
///
/// Verification accepts exactly `"alg":"HS256"`: a token that names another algorithm (the
/// classic `none` downgrade) is refused before any signature is computed.
struct JWTSigner: Sendable {
    enum Failure: Error, Equatable {
        case malformed
        case unsupportedAlgorithm
        case badSignature
        case badClaims
    }

    private let key: SymmetricKey
    private static let header = Base64URL.encode(Array(#"{"alg":"HS256","typ":"JWT"}"#.utf8))

    init(key: [UInt8]) {
        self.key = SymmetricKey(data: key)
    }

    func sign(_ claims: some Encodable) throws -> String {
        let input = Self.header + "." + Base64URL.encode(try JSONCoding.data(claims))
        return input + "." + signature(of: input)
    }

    /// The decoded claims of a token this signer made; the caller checks times and kinds.
    func verify<Claims: Decodable>(_ token: some StringProtocol, as _: Claims.Type) -> Result<Claims, Failure> {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let headerBytes = Base64URL.decode(parts[0]),
            let signatureBytes = Base64URL.decode(parts[2]), let payload = Base64URL.decode(parts[1])
        else { return .failure(.malformed) }
        guard let header = try? JSONCoding.decode(JOSEHeader.self, from: Data(headerBytes)) else { return .failure(.malformed) }
        guard header.alg == "HS256" else { return .failure(.unsupportedAlgorithm) }
        let input = Data((parts[0] + "." + parts[1]).utf8)
        guard HMAC<SHA256>.isValidAuthenticationCode(signatureBytes, authenticating: input, using: key) else {
            return .failure(.badSignature)
        }
        guard let claims = try? JSONCoding.decode(Claims.self, from: Data(payload)) else { return .failure(.badClaims) }
        return .success(claims)
    }

    /// The base64url HMAC-SHA256 of a JWS signing input (`header.payload`).
    func signature(of signingInput: String) -> String {
        Base64URL.encode(HMAC<SHA256>.authenticationCode(for: Data(signingInput.utf8), using: key))
    }
}

/// The JOSE header fields a verifier must look at.
struct JOSEHeader: Decodable {
    let alg: String
}
