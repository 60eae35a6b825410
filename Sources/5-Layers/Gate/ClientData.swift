internal import AttestCore
internal import Crypto

/// The client-data document of request binding (docs/api.md §2, binding modes).
///
/// The app sends the exact JSON bytes it hashed, base64-encoded, in `X-Attest-Client-Data`; the server
/// hashes the bytes it received (no canonicalisation) and checks every field against the request it
/// actually got, so a proof captured for one request cannot be attached to another.
package struct ClientData: Sendable, Hashable {
    /// The exact bytes the client hashed.
    package let bytes: [UInt8]
    package let challenge: String
    package let method: String
    package let path: String
    package let bodySHA256: String

    /// The largest client-data document accepted (it holds four short fields).
    package static let maxBytes = 2048

    /// Decodes the `X-Attest-Client-Data` header value.
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

    /// Checks the document against the request actually received.
    /// - Returns: nil when every field matches, otherwise the reason slug of the first mismatch.
    package func mismatch(challengeHeader: String, method: String, rawPath: String, body: [UInt8]) -> String? {
        if challenge != challengeHeader { return "binding.challenge_mismatch" }
        if self.method != method.uppercased() { return "binding.method_mismatch" }
        if path != rawPath { return "binding.path_mismatch" }
        if bodySHA256 != Bytes.hex(Digest.sha256(body)) { return "binding.body_mismatch" }
        return nil
    }

    /// iOS `clientDataHash` for request binding: SHA-256 of the client-data bytes.
    package var appAttestClientDataHash: [UInt8] { Digest.sha256(bytes) }

    /// Android `requestHash` for request binding: lower-hex SHA-256 of the client-data bytes.
    package var playRequestHash: String { Bytes.hex(Digest.sha256(bytes)) }
}

extension BindingMode {
    /// iOS `clientDataHash` for challenge binding: SHA-256 of the challenge bytes (docs/api.md §2, binding modes).
    package static func challengeClientDataHash(challenge: [UInt8]) -> [UInt8] { Digest.sha256(challenge) }

    /// Android `requestHash` for challenge binding: lower-hex SHA-256 of `deviceId + "\n" + challengeBase64`
    /// (docs/api.md §2, binding modes).
    package static func challengeRequestHash(deviceID: String, challengeBase64: String) -> String {
        Bytes.hex(Digest.sha256(Array("\(deviceID)\n\(challengeBase64)".utf8)))
    }
}
