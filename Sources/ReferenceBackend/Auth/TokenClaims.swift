/// The claims of the access and refresh tokens this backend issues.
///
/// Both are JWTs so a client can read `exp` to refresh ahead of expiry (SolidFocus Flow 8: "check
/// the access_token's exp claim"). `fam` names the login the token belongs to: logging out or
/// presenting a rotated refresh token revokes the whole login at once. `seq` orders tokens
/// within this process so the admin API can expire "every token issued so far".
struct TokenClaims: Sendable, Codable, Hashable {
    enum Kind: String, Sendable, Codable {
        case access
        case refresh
    }

    let typ: Kind
    /// The user: the id token's subject.
    let sub: String
    /// The device the login is bound to.
    let dev: String
    /// The login (token family) id.
    let fam: String
    let jti: String
    let seq: Int64
    let iat: Int64
    let exp: Int64
}
