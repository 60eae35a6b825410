internal import AttestCore
internal import Crypto
package import FoundationEssentials

/// Verifies App Attest attestations (key registration) and assertions (every metered request).
///
/// Configured once at cold start; `Sendable` and cheap to share. Each verification is synchronous:
/// no `await` happens between parsing, OpenSSL calls and reading OpenSSL's error queue.
package struct AppAttestVerifier: Sendable {
    package let appIds: [AppID]
    package let environment: AppAttestEnvironment
    package let trust: AppAttestTrust
    let cache: IntermediateCache
    let receiptCache: IntermediateCache
    let storedKeys: StoredKeyCache

    /// - Parameters:
    ///   - teamId: the Apple Developer Team ID.
    ///   - bundleIds: every bundle id we serve (at least one).
    ///   - environment: which aaguid to accept; production never accepts development keys.
    ///   - trust: Apple's pinned roots, or a synthetic root outside production.
    package init(
        teamId: String,
        bundleIds: [String],
        environment: AppAttestEnvironment,
        trust: AppAttestTrust = .apple,
        cache: IntermediateCache = IntermediateCache()
    ) {
        self.appIds = bundleIds.map { AppID(teamId: teamId, bundleId: $0) }
        self.environment = environment
        self.trust = trust
        self.cache = cache
        self.receiptCache = IntermediateCache()
        self.storedKeys = StoredKeyCache()
    }

    /// Verifies an attestation object following Apple's steps 1-9 in order.
    ///
    /// With the intermediate already verified (cached), this is one P-384 signature verification plus
    /// parsing; the receipt is returned as received, for `verifyReceipt`.
    /// - Parameters:
    ///   - keyId: the key id the client sent (32 bytes, decoded from base64).
    ///   - attestation: the CBOR attestation object.
    ///   - clientDataHash: the 32 bytes the client passed to `attestKey` (for us `SHA-256(challenge)`;
    ///     a contract between app and server, so always an explicit input).
    ///   - now: the verification time (certificate windows are checked at it).
    /// - Returns: the attested key with its receipt's bytes.
    /// - Throws: `AppAttestError` with the slug of the first failing check.
    package func verifyAttestation(
        keyId: [UInt8],
        attestation: [UInt8],
        clientDataHash: [UInt8],
        now: Date
    ) throws(AppAttestError) -> AttestedKey {
        guard keyId.count == 32 else { throw AppAttestError(.keyIdMismatch, detail: "key id must be 32 bytes") }
        guard attestation.count <= AttestationObject.maxBytes else {
            throw AppAttestError(.attestationNotCBOR, detail: "\(attestation.count) bytes")
        }
        let object = try AttestationObject(attestation)
        let evidence = try AttestationEvidence(
            keyId: keyId,
            clientDataHash: clientDataHash,
            object: object,
            now: now,
            root: trust.attestationRoot,
            cache: cache
        )
        for policy in policies {
            if case .fail(let reason, let detail) = policy.evaluate(evidence) {
                throw AppAttestError(reason, detail: detail)
            }
        }
        // Both are non-nil once the chain policy passed.
        guard let publicKey = evidence.leafKey,
            let appId = appIds.first(where: { $0.rpIdHash == evidence.authenticatorData.rpIdHash })
        else { throw AppAttestError(.keyUnsupported) }
        return AttestedKey(
            keyId: keyId,
            publicKey: publicKey,
            environment: environment,
            appId: appId,
            unverifiedReceipt: object.receipt,
            credentialCertificateDER: evidence.leaf.derRepresentation,
            counter: 0
        )
    }

    /// Verifies the ATTEST receipt of an attested key (docs/appattest.md): its PKCS#7 signature and signer
    /// chain to Apple Root CA - G3 at `now`, then that it names our app, this key and this attestation's
    /// client data hash, in the configured environment.
    /// - Throws: `AppAttestError` with a `receipt_*` slug.
    package func verifyReceipt(
        of key: AttestedKey,
        clientDataHash: [UInt8],
        now: Date
    ) throws(AppAttestError) -> AppAttestReceipt {
        let receipt = try AppAttestReceipt(
            verifying: key.unverifiedReceipt,
            root: trust.receiptRoot,
            at: now,
            chainCache: receiptCache
        )
        guard receipt.kind == .attest else { throw AppAttestError(.receiptTypeUnexpected) }
        if case .fail(let reason, let detail) = receipt.check(
            appIds: appIds,
            publicKey: key.publicKey,
            clientDataHash: clientDataHash,
            environment: environment,
            credentialCertificateDER: key.credentialCertificateDER
        ) {
            throw AppAttestError(reason, detail: detail)
        }
        return receipt
    }

    /// What key registration runs: `verifyAttestation` (Apple's nine steps, which alone decide), then
    /// `verifyReceipt` on its result, whose refusal is reported, not thrown: a genuine attestation whose
    /// receipt our check refuses (early iOS 14 receipts signed over the content instead of the signed
    /// attributes) is still a genuine key; its device tier waits for a receipt Apple returns (docs/appattest.md).
    /// - Throws: `AppAttestError` with the slug of the first failing check of Apple's steps.
    package func verifyRegistration(
        keyId: [UInt8],
        attestation: [UInt8],
        clientDataHash: [UInt8],
        now: Date
    ) throws(AppAttestError) -> VerifiedRegistration {
        let key = try verifyAttestation(
            keyId: keyId,
            attestation: attestation,
            clientDataHash: clientDataHash,
            now: now
        )
        do {
            return VerifiedRegistration(
                key: key,
                receipt: try verifyReceipt(of: key, clientDataHash: clientDataHash, now: now)
            )
        } catch {
            return VerifiedRegistration(key: key, receiptRefusal: error)
        }
    }

    /// Apple's steps in Apple's order (docs/appattest.md, "Order of checks and reason slugs").
    private var policies: [any AttestationPolicy] {
        [
            CertificateChainPolicy(verifier: CertificateChainVerifier(root: trust.attestationRoot), cache: cache),
            NoncePolicy(),
            KeyIdPolicy(),
            AppIdPolicy(appIds: appIds),
            CounterZeroPolicy(),
            AaguidPolicy(environment: environment),
            CredentialIdPolicy(),
            CredentialKeyPolicy(),
        ]
    }
}
