package import AttestCore
package import Crypto
package import FoundationEssentials

/// The provider token DeviceCheck requires: an ES256 JWT, header `{"alg":"ES256","kid":KEY_ID}`, claims
/// `{"iss":TEAM_ID,"iat":now}` (Apple, "Accessing and modifying per-device data").
package enum DeviceCheckJWT {
    /// - Returns: `base64url(header).base64url(claims).base64url(r ‖ s)`.
    /// - Throws: `CryptoError` if signing fails.
    package static func make(
        key: P256PrivateKey,
        keyID: String,
        teamID: String,
        now: Date
    ) throws(CryptoError) -> String {
        let header = JSONValue.object(["alg": .string("ES256"), "kid": .string(keyID)])
        let claims = JSONValue.object([
            "iss": .string(teamID), "iat": .int(Int64(now.timeIntervalSince1970.rounded(.down))),
        ])
        let signingInput = Bytes.base64URL(header.serializedBytes) + "." + Bytes.base64URL(claims.serializedBytes)
        let signature = try key.signature(for: Array(signingInput.utf8))
        return signingInput + "." + Bytes.base64URL(signature.rawRepresentation)
    }

    /// Loads the `.p8` key (PKCS#8 PEM) from its secret source and wipes the bytes read.
    /// - Throws: `SecretSourceError` when it cannot be read, `CryptoError` when it is not a P-256 key.
    package static func loadKey(from source: any SecretSource) async throws -> P256PrivateKey {
        var bytes = try await source.readSecret()
        defer { Zeroization.wipe(&bytes) }
        return try P256PrivateKey(pemRepresentation: String(decoding: bytes, as: UTF8.self))
    }
}
