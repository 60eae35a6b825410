internal import AppAttest
internal import AttestCore
internal import CBOR
internal import Crypto
internal import FoundationEssentials

/// One fuzz input: the CBOR decoder, the receipt envelope's BER reader, then `verifyRegistration` (`verifyAttestation` and the receipt) and
/// `verifyAssertion` over the same bytes.
/// Any outcome but a crash, a hang or a sanitizer report is fine: malformed input must end in a slug.
///
/// The inputs match the fuzz seeds (fuzz/seeds), so mutations of a genuine object reach the later checks:
/// Apple's 2026 guide sample for attestations, bas-d/appattest's vector for assertions.
enum FuzzTarget {
    static let attestationVerifier = AppAttestVerifier(
        teamId: "1234567890",
        bundleIds: ["com.example.myapp"],
        environment: .production
    )
    static let keyId = Bytes.fromBase64("zgSY9YSD+7TaDXssY6WlOPVS1K3Lmk+pFhlcSWE+ZV0=") ?? []
    static let attestationClientDataHash = Array("example_server_challenge".utf8)
    static let attestationTime = Date(timeIntervalSince1970: 1_776_795_192)  // 2026-04-21T18:13:12Z

    static let assertionVerifier = AppAttestVerifier(
        teamId: "35MFYY2JY5",
        bundleIds: ["co.chiff.attestation-test"],
        environment: .development
    )
    static let assertionKey =
        Bytes.fromBase64(
            "BDfEBPorv4+89O5wgFc9X6gMT2zDoi99tDr5LDlOfNHIgMlatCKXJiXo5nOvG9orCWZU6bYCiVYB+SW7WUHFMII="
        ) ?? []
    static let assertionClientDataHash = Digest.sha256(Array(#"{"challenge":"assertion-test"}"#.utf8))

    /// - Returns: how many of the two verifiers accepted the input (the replayer reports it).
    @discardableResult
    static func run(_ input: [UInt8]) -> Int {
        _ = try? CBORDecoder().decode(input)
        _ = SignedData.appAttestEnvelope(input)  // the receipt's BER reader, on raw bytes too
        let attested = try? attestationVerifier.verifyRegistration(
            keyId: keyId,
            attestation: input,
            clientDataHash: attestationClientDataHash,
            now: attestationTime
        )
        let asserted = try? assertionVerifier.verifyAssertion(
            publicKeyBytes: assertionKey,
            assertion: input,
            clientDataHash: assertionClientDataHash,
            storedCounter: 0
        )
        return (attested == nil ? 0 : 1) + (asserted == nil ? 0 : 1)
    }
}
