internal import AttestCore
internal import Crypto
package import FoundationEssentials

/// The signed JWT of Google's JWT-bearer grant ("OAuth 2.0 for Server to Server Applications").
///
/// Header `{"alg":"RS256","kid":<private_key_id>,"typ":"JWT"}`; claims `iss` (client email), `scope`,
/// `aud` (the token endpoint), `iat` and `exp` (at most one hour later, Google's limit).
package enum ServiceAccountAssertion {
    /// The longest lifetime Google accepts.
    package static let maximumLifetime: Int64 = 3600

    /// Builds and signs the assertion.
    /// - Parameters:
    ///   - key: the service account.
    ///   - scope: space-separated OAuth scopes.
    ///   - audience: the token endpoint URL.
    ///   - now: the issue time (whole seconds).
    ///   - lifetime: seconds until `exp`, clamped to 1…3600.
    /// - Returns: `base64url(header).base64url(claims).base64url(signature)`.
    package static func make(
        key: ServiceAccountKey,
        scope: String,
        audience: String,
        now: Date,
        lifetime: Int64 = maximumLifetime
    ) throws(GoogleAuthError) -> String {
        let issuedAt = Int64(now.timeIntervalSince1970.rounded(.down))
        let header = JSONValue.object([
            "alg": .string("RS256"), "typ": .string("JWT"), "kid": .string(key.privateKeyID),
        ])
        let claims = JSONValue.object([
            "iss": .string(key.clientEmail),
            "scope": .string(scope),
            "aud": .string(audience),
            "iat": .int(issuedAt),
            "exp": .int(issuedAt + min(max(lifetime, 1), maximumLifetime)),
        ])
        let signingInput = Bytes.base64URL(header.serializedBytes) + "." + Bytes.base64URL(claims.serializedBytes)
        do {
            let signature = try key.privateKey.signRS256(Array(signingInput.utf8))
            return signingInput + "." + Bytes.base64URL(signature)
        } catch {
            throw GoogleAuthError(.signingFailed, detail: error.description)
        }
    }
}
