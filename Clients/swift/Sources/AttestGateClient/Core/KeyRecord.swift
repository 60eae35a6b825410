/// The App Attest key as the client keeps it across launches (in the `SecureStore`, as JSON): its id and
/// how far its registration got. Nothing secret: the private key never leaves the Secure Enclave.
struct KeyRecord: Codable, Hashable, Sendable {
    enum Phase: Codable, Hashable, Sendable {
        /// `generateKey` returned the id; not attested yet.
        case generated
        /// `attestKey` answered `serverUnavailable`: try again with the same key and the same hash (and its
        /// challenge, while the challenge lives).
        case attesting(challenge: String, clientDataHash: [UInt8], expiresAt: Int64)
        /// Apple attested the key; the registration (`POST /v1/attest/keys`) is not confirmed. `sent`: a
        /// request left and its answer was lost, so the server may hold the key already.
        case attested(attestation: [UInt8], challenge: String, expiresAt: Int64, sent: Bool)
        /// The server answered the registration with a binding.
        case registered
        /// The registration may or may not have reached the server (an answer lost, then the challenge
        /// refused on the resend, or it expired before a resend): calls try the key; a refusal renews it.
        case unconfirmed
    }

    var keyID: String
    var phase: Phase
}
