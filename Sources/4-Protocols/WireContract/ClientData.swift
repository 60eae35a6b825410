internal import AttestCore
internal import Crypto

/// The client-data document of request binding (docs/api.md): `{"challenge","method","path","bodySHA256"}`.
///
/// The app hashes these exact bytes and sends them base64-encoded in `X-Attest-Client-Data`; the server
/// hashes the bytes it received (no canonicalisation) and checks every field against the request it
/// actually got, so a proof made for one call (challenge, method, path, body) cannot be stapled onto
/// another. The hash rules:
/// - `bodySHA256`: lower-case hex SHA-256 of the raw request body (empty body: of no bytes);
/// - iOS `clientDataHash` (passed to `generateAssertion`): SHA-256 of the document's bytes;
/// - Android `requestHash` (passed to the standard integrity request): lower-case hex of the same SHA-256.
package struct ClientData: Sendable, Hashable {
    /// The exact bytes the client hashed.
    package let bytes: [UInt8]
    /// The same base64 text as `X-Attest-Challenge`.
    package let challenge: String
    /// Upper case.
    package let method: String
    /// The raw path, exactly as sent (no query).
    package let path: String
    package let bodySHA256: String

    /// The largest client-data document accepted (it holds four short fields).
    package static let maxBytes = 2048

    /// Encodes the document for a request, as an app does.
    package init(challenge: String, method: String, path: String, body: [UInt8]) {
        self.init(challenge: challenge, method: method, path: path, bodySHA256: Self.bodySHA256(body))
    }

    /// Encodes a document with a given `bodySHA256` (tests that bind to another body).
    package init(challenge: String, method: String, path: String, bodySHA256: String) {
        self.challenge = challenge
        self.method = method
        self.path = path
        self.bodySHA256 = bodySHA256
        self.bytes =
            JSONValue.object([
                "challenge": .string(challenge), "method": .string(method), "path": .string(path),
                "bodySHA256": .string(bodySHA256),
            ]).serializedBytes
    }

    /// Decodes the `X-Attest-Client-Data` header value (server side).
    /// - Returns: nil when the header is not base64 of a JSON object with four string fields.
    package init?(header: String) {
        guard header.utf8.count <= Self.maxBytes * 4 / 3 + 4, let bytes = Bytes.fromBase64(header),
            bytes.count <= Self.maxBytes, case .object(let fields)? = try? JSONValue.parse(bytes),
            let challenge = fields["challenge"]?.stringValue, let method = fields["method"]?.stringValue,
            let path = fields["path"]?.stringValue, let bodySHA256 = fields["bodySHA256"]?.stringValue
        else { return nil }
        self.bytes = bytes
        self.challenge = challenge
        self.method = method
        self.path = path
        self.bodySHA256 = bodySHA256
    }

    /// The `X-Attest-Client-Data` header value: base64 of `bytes`.
    package var header: String { Bytes.base64(bytes) }

    /// `bodySHA256` of `body`: lower-case hex SHA-256.
    package static func bodySHA256(_ body: [UInt8]) -> String { Bytes.hex(Digest.sha256(body)) }

    /// iOS `clientDataHash` for request binding: SHA-256 of the client-data bytes.
    package var appAttestClientDataHash: [UInt8] { Digest.sha256(bytes) }

    /// Android `requestHash` for request binding: lower-hex SHA-256 of the client-data bytes.
    package var playRequestHash: String { Bytes.hex(Digest.sha256(bytes)) }
}

/// The hash rules of challenge binding (docs/api.md), where no client-data document is sent.
package enum ChallengeBinding {
    /// iOS `clientDataHash`: SHA-256 of the challenge bytes.
    package static func appAttestClientDataHash(challenge: [UInt8]) -> [UInt8] { Digest.sha256(challenge) }

    /// Android `requestHash`: lower-hex SHA-256 of `deviceId + "\n" + challengeBase64`.
    package static func playRequestHash(deviceID: String, challengeBase64: String) -> String {
        Bytes.hex(Digest.sha256(Array("\(deviceID)\n\(challengeBase64)".utf8)))
    }
}
