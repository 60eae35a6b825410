internal import AttestCore
internal import CBOR
internal import Crypto

// Apple's "Validating apps that connect to your server", attestation steps 1-9, one policy each,
// run by `AppAttestVerifier` in this order. Comparisons of hashes use constant time.

/// Step 1: the leaf and intermediate chain to the pinned root, every link valid at `now`; ECDSA only
/// (P-256 leaf, P-384 intermediate). A verified intermediate is remembered by the hash of its DER, unless
/// it constrains its subordinates in ways only the full chain build checks.
struct CertificateChainPolicy: AttestationPolicy {
    let verifier: CertificateChainVerifier
    let cache: IntermediateCache

    func evaluate(_ evidence: AttestationEvidence) -> AttestationCheckResult {
        guard evidence.leafKey?.curve == .p256, evidence.intermediateIsP384 else {
            return .fail(.keyUnsupported, detail: "leaf must be P-256 and intermediate P-384")
        }
        do {
            if evidence.intermediateVerified {
                try verifier.verify(leaf: evidence.leaf, verifiedIntermediate: evidence.intermediate, at: evidence.now)
            } else {
                try verifier.verify(leaf: evidence.leaf, intermediates: [evidence.intermediate], at: evidence.now)
                // An intermediate with constraints only the full build checks is verified in full every time.
                if CertificateChainVerifier.isOneLinkAnchor(evidence.intermediate) {
                    cache.insert(evidence.intermediateKey, evidence.intermediate)
                }
            }
            return .pass
        } catch {
            return .fail(error.reason == .certificateExpired ? .certExpired : .chainUntrusted, detail: error.detail)
        }
    }
}

/// Steps 2-4: `nonce = SHA-256(authData ‖ clientDataHash)` equals the leaf's nonce extension.
struct NoncePolicy: AttestationPolicy {
    func evaluate(_ evidence: AttestationEvidence) -> AttestationCheckResult {
        guard let value = evidence.leaf.extensionValue(oid: NonceExtension.oid) else { return .fail(.nonceMissing) }
        guard let nonce = NonceExtension.nonce(fromExtensionValue: value) else { return .fail(.nonceMalformed) }
        let expected = Digest.sha256(parts: [evidence.object.authenticatorDataBytes, evidence.clientDataHash])
        return ConstantTime.equal(nonce, expected) ? .pass : .fail(.nonceMismatch)
    }
}

/// Step 5: the key id is SHA-256 of the leaf key's X9.62 uncompressed point.
struct KeyIdPolicy: AttestationPolicy {
    func evaluate(_ evidence: AttestationEvidence) -> AttestationCheckResult {
        guard let key = evidence.leafKey else { return .fail(.keyUnsupported) }
        return ConstantTime.equal(Digest.sha256(key.x962Representation), evidence.keyId) ? .pass : .fail(.keyIdMismatch)
    }
}

/// Step 6: rpIdHash is SHA-256 of one of our App IDs.
struct AppIdPolicy: AttestationPolicy {
    let appIds: [AppID]

    func evaluate(_ evidence: AttestationEvidence) -> AttestationCheckResult {
        let rpIdHash = evidence.authenticatorData.rpIdHash
        return appIds.contains { ConstantTime.equal($0.rpIdHash, rpIdHash) } ? .pass : .fail(.appIdMismatch)
    }
}

/// Step 7: a fresh key has signed nothing yet.
struct CounterZeroPolicy: AttestationPolicy {
    func evaluate(_ evidence: AttestationEvidence) -> AttestationCheckResult {
        evidence.authenticatorData.counter == 0
            ? .pass : .fail(.counterNotZero, detail: "\(evidence.authenticatorData.counter)")
    }
}

/// Step 8: the aaguid of the configured environment, and only that one.
struct AaguidPolicy: AttestationPolicy {
    let environment: AppAttestEnvironment

    func evaluate(_ evidence: AttestationEvidence) -> AttestationCheckResult {
        evidence.authenticatorData.attestedCredential?.aaguid == environment.aaguid ? .pass : .fail(.aaguidMismatch)
    }
}

/// Step 9: the credential id is the key id.
struct CredentialIdPolicy: AttestationPolicy {
    func evaluate(_ evidence: AttestationEvidence) -> AttestationCheckResult {
        guard let credentialId = evidence.authenticatorData.attestedCredential?.credentialId else {
            return .fail(.credIdMismatch)
        }
        return ConstantTime.equal(credentialId, evidence.keyId) ? .pass : .fail(.credIdMismatch)
    }
}

/// The COSE credential key in authenticator data is the leaf's key (EC2, P-256, same x and y).
struct CredentialKeyPolicy: AttestationPolicy {
    func evaluate(_ evidence: AttestationEvidence) -> AttestationCheckResult {
        guard let point = evidence.leafKey?.x962Representation, point.count == 65,
            let cose = evidence.authenticatorData.attestedCredential?.publicKey
        else { return .fail(.credentialKeyMismatch) }
        func value(_ label: Int) -> [UInt8]? {
            let key: CBORValue = label >= 0 ? .unsigned(UInt64(label)) : .negative(UInt64(-1 - label))
            return cose.first { $0.key == key }?.value.bytesValue
        }
        let keyType = cose.first { $0.key == .unsigned(1) }?.value
        let curve = cose.first { $0.key == .negative(0) }?.value
        guard keyType == .unsigned(2), curve == .unsigned(1), value(-2) == Array(point[1..<33]),
            value(-3) == Array(point[33..<65])
        else { return .fail(.credentialKeyMismatch) }
        return .pass
    }
}
