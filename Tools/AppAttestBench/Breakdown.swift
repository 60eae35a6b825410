internal import AppAttest
internal import CBOR
internal import Crypto
internal import FoundationEssentials

/// `--breakdown`: the cost of each stage of one attestation, to see where time goes.
enum Breakdown {
    static func run(
        attestation: [UInt8],
        whole: @escaping () throws -> Void,
        root: Certificate,
        now: Date,
        rate: ((Int) throws -> Void) throws -> Double
    ) throws {
        let object = try CBORDecoder().decode(attestation)
        let x5c = object["attStmt"]?["x5c"]?.arrayValue?.compactMap(\.bytesValue) ?? []
        let receipt = object["attStmt"]?["receipt"]?.bytesValue ?? []
        let leaf = try Certificate(derRepresentation: x5c[0])
        let deferredLeaf = try Certificate(derRepresentation: x5c[0], keyDecoding: .deferred)
        let intermediate = try Certificate(derRepresentation: x5c[1])
        let verifier = CertificateChainVerifier(root: root)
        let signed = try SignedData(verifyingSignatureOf: receipt)
        let stages: [(String, (Int) throws -> Void)] = [
            ("whole verifyAttestation (cached intermediate)", { _ in try whole() }),
            ("cbor decode", { _ in _ = try CBORDecoder().decode(attestation) }),
            ("leaf parse, key decoded by OpenSSL", { _ in _ = try Certificate(derRepresentation: x5c[0]) }),
            (
                "leaf parse, key deferred",
                { _ in _ = try Certificate(derRepresentation: x5c[0], keyDecoding: .deferred) }
            ),
            ("leaf public key", { _ in _ = try leaf.publicKey() }),
            (
                "chain (cached intermediate)",
                { _ in try verifier.verify(leaf: deferredLeaf, verifiedIntermediate: intermediate, at: now) }
            ),
            ("chain (full)", { _ in try verifier.verify(leaf: leaf, intermediates: [intermediate], at: now) }),
            ("receipt PKCS#7 parse+signature", { _ in _ = try SignedData(verifyingSignatureOf: receipt) }),
            ("receipt chain (full)", { _ in try signed.verifyChain(to: root, at: now) }),
            (
                "receipt fields",
                { _ in _ = try AppAttestReceipt(verifying: receipt, root: root, at: now, chainCache: cache) }
            ),
        ]
        _ = try AppAttestReceipt(verifying: receipt, root: root, at: now, chainCache: cache)
        for (name, body) in stages {
            let perSecond = try rate(body)
            print("  \(name): \(Int(perSecond))/s (\((1_000_000 / perSecond).rounded()) µs)")
        }
    }

    static let cache = IntermediateCache()
}
