internal import AppAttest
internal import CBOR
internal import Crypto
internal import FoundationEssentials

/// One fuzz input: the CBOR decoder, then `verifyAttestation` and `verifyAssertion` over the same
/// bytes. Any outcome but a crash, a hang or a sanitizer report is fine: malformed input must end in
/// a reason slug.
enum FuzzTarget {
    static let verifier = AppAttestVerifier(
        teamId: "0352187391",
        bundleIds: ["com.apple.example_app_attest"],
        environment: .production
    )
    static let now = Date(timeIntervalSince1970: 1_713_456_894)  // Apple's 2024 sample is valid then
    static let key = try? ECPublicKey(
        p256X962: [0x04] + [UInt8](repeating: 0, count: 32) + [UInt8](repeating: 0, count: 32)
    )

    static func run(_ input: [UInt8]) {
        _ = try? CBORDecoder().decode(input)
        _ = try? verifier.verifyAttestation(
            keyId: [UInt8](repeating: 0, count: 32),
            attestation: input,
            clientDataHash: [1],
            now: now
        )
        if let key {
            _ = try? verifier.verifyAssertion(publicKey: key, assertion: input, clientDataHash: [1], storedCounter: 0)
        }
    }
}
