internal import AttestCore
internal import Crypto

/// The `requestHash` the server expects, for the two binding modes of docs/api.md §2.
package enum PlayRequestHash {
    /// `binding: request`: lower-hex SHA-256 of the exact client-data bytes (`X-Attest-Client-Data`, decoded).
    package static func requestBinding(clientData: [UInt8]) -> String {
        Bytes.hex(Digest.sha256(clientData))
    }

    /// `binding: challenge` (seed-compatible): lower-hex SHA-256 of `deviceId + "\n" + challengeBase64`,
    /// with the challenge exactly as the server issued it (standard base64).
    package static func challengeBinding(deviceID: String, challengeBase64: String) -> String {
        Bytes.hex(Digest.sha256(Array((deviceID + "\n" + challengeBase64).utf8)))
    }
}
