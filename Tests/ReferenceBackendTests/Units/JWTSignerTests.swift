import FoundationEssentials
import Testing
@testable import ReferenceBackend

@Suite("JWT HS256 and base64url")
struct JWTSignerTests {
    /// RFC 7515 Appendix A.1: the JWK `k` of the example, its signing input, its signature.
    static let rfcKey = "AyM1SysPpbyDfgZld3umj1qzKObwVMkoqQ-EstJQLr_T-1qS0gZH75aKtMN3Yj0iPS4hcgUuTwjAzZr1Z9CAow"
    static let rfcInput =
        "eyJ0eXAiOiJKV1QiLA0KICJhbGciOiJIUzI1NiJ9.eyJpc3MiOiJqb2UiLA0KICJleHAiOjEzMDA4MTkzODAsDQogImh0dHA6Ly9leGFtcGxlLmNvbS9pc19yb290Ijp0cnVlfQ"
    static let rfcSignature = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"

    struct RFCClaims: Decodable, Equatable {
        let iss: String
        let exp: Int
    }

    @Test("RFC 7515 A.1 known answer: signature and verification")
    func rfcKnownAnswer() throws {
        let key = try #require(Base64URL.decode(Self.rfcKey))
        let signer = JWTSigner(key: key)
        #expect(signer.signature(of: Self.rfcInput) == Self.rfcSignature)
        let claims = try signer.verify(Self.rfcInput + "." + Self.rfcSignature, as: RFCClaims.self).get()
        #expect(claims == RFCClaims(iss: "joe", exp: 1_300_819_380))
    }

    @Test("a signed token verifies and decodes to the same claims")
    func roundTrip() throws {
        let signer = JWTSigner(key: Array(repeating: 7, count: 32))
        let claims = TokenClaims(typ: .access, sub: "alice", dev: "d", fam: "f", jti: "j", seq: 3, iat: 10, exp: 20)
        let token = try signer.sign(claims)
        #expect(token.split(separator: ".").count == 3)
        #expect(try signer.verify(token, as: TokenClaims.self).get() == claims)
    }

    @Test("tampering, another key, alg none and garbage are all refused")
    func refusals() throws {
        let signer = JWTSigner(key: Array(repeating: 7, count: 32))
        let claims = TokenClaims(typ: .access, sub: "alice", dev: "d", fam: "f", jti: "j", seq: 3, iat: 10, exp: 20)
        let token = try signer.sign(claims)
        let parts = token.split(separator: ".").map(String.init)
        let forgedClaims = TokenClaims(typ: .access, sub: "mallory", dev: "d", fam: "f", jti: "j", seq: 3, iat: 10, exp: 20)
        let forgedPayload = Base64URL.encode(try JSONCoding.data(forgedClaims))
        #expect(signer.verify(parts[0] + "." + forgedPayload + "." + parts[2], as: TokenClaims.self) == .failure(.badSignature))
        #expect(JWTSigner(key: Array(repeating: 8, count: 32)).verify(token, as: TokenClaims.self) == .failure(.badSignature))
        let none = Base64URL.encode(Array(#"{"alg":"none","typ":"JWT"}"#.utf8))
        #expect(signer.verify(none + "." + parts[1] + ".", as: TokenClaims.self) == .failure(.unsupportedAlgorithm))
        #expect(signer.verify("not-a-token", as: TokenClaims.self) == .failure(.malformed))
        #expect(signer.verify("a.b", as: TokenClaims.self) == .failure(.malformed))
        // Right signature over claims of the wrong shape.
        struct Other: Encodable { let x = 1 }
        #expect(signer.verify(try signer.sign(Other()), as: TokenClaims.self) == .failure(.badClaims))
    }

    @Test("base64url: RFC 4648 §10 vectors without padding, and back")
    func base64URL() {
        let vectors = ["": "", "f": "Zg", "fo": "Zm8", "foo": "Zm9v", "foob": "Zm9vYg", "fooba": "Zm9vYmE", "foobar": "Zm9vYmFy"]
        for (plain, encoded) in vectors {
            #expect(Base64URL.encode(Array(plain.utf8)) == encoded)
            #expect(Base64URL.decode(encoded) == Array(plain.utf8))
        }
        #expect(Base64URL.encode([0xFB, 0xFF]) == "-_8")
        #expect(Base64URL.decode("-_8") == [0xFB, 0xFF])
        #expect(Base64URL.decode("+/8") == nil)
        #expect(Base64URL.decode("Z") == nil)
    }

    @Test("base64url round-trips every length and byte", arguments: 0..<40)
    func base64URLProperty(length: Int) {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<length).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        #expect(Base64URL.decode(Base64URL.encode(bytes)) == bytes)
    }
}
