internal import CBOR
package import Crypto

extension AppAttestVerifier {
    /// Verifies an assertion `{signature, authenticatorData}` made with a registered key.
    ///
    /// Order (docs/appattest.md): rpIdHash, counter strictly greater than `storedCounter`, then the
    /// ECDSA-SHA256 signature over `nonce = SHA-256(authenticatorData ‖ clientDataHash)`. The signed
    /// message is the nonce itself, hashed once more by ECDSA; it is not a pre-hashed digest.
    /// - Parameters:
    ///   - publicKey: the key stored at registration.
    ///   - assertion: the CBOR assertion.
    ///   - clientDataHash: SHA-256 of the client data (or of the challenge, in challenge binding).
    ///   - storedCounter: the counter stored after the last accepted assertion (0 after attestation).
    /// - Returns: the assertion's counter, to store with a conditional write.
    /// - Throws: `AppAttestError` (`assertion_*`).
    package func verifyAssertion(
        publicKey: ECPublicKey,
        assertion: [UInt8],
        clientDataHash: [UInt8],
        storedCounter: UInt32
    ) throws(AppAttestError) -> UInt32 {
        try verify(
            assertion: assertion,
            publicKey: publicKey,
            clientDataHash: clientDataHash,
            counterAbove: storedCounter
        ).counter
    }

    /// Verifies an assertion as `verifyAssertion` does, with two choices for the caller:
    /// - Parameters:
    ///   - counterAbove: the counter must be strictly greater; nil skips that step. Only a caller that
    ///     proved the assertion fresh some other way passes nil: the gate, whose `clientDataHash` covers a
    ///     single-use challenge it has just spent for this device ID (docs/gate.md, "Counter races").
    ///   - appId: the App ID stored with the key; the assertion must carry its rpIdHash, and it must still
    ///     be one we serve. nil accepts any configured App ID (keys stored before App IDs were).
    /// - Returns: the assertion's counter and the App ID whose rpIdHash it carries.
    package func verify(
        assertion: [UInt8],
        publicKey: ECPublicKey,
        clientDataHash: [UInt8],
        counterAbove storedCounter: UInt32?,
        appId: AppID? = nil
    ) throws(AppAttestError) -> VerifiedAssertion {
        let decoder = CBORDecoder(maxDepth: 2, maxElements: 4, maxInputBytes: 4096)
        let root: CBORValue
        do { root = try decoder.decode(assertion) } catch {
            throw AppAttestError(.assertionNotCBOR, detail: error.reason.slug)
        }
        guard let signature = root["signature"]?.bytesValue, let authData = root["authenticatorData"]?.bytesValue,
            let parsed = AuthenticatorData(authData, requireAttestedCredential: false)
        else { throw AppAttestError(.assertionMalformed) }
        let candidates = appId.map { pinned in appIds.filter { $0 == pinned } } ?? appIds
        guard let matched = candidates.first(where: { ConstantTime.equal($0.rpIdHash, parsed.rpIdHash) }) else {
            throw AppAttestError(.assertionAppIdMismatch)
        }
        if let storedCounter, parsed.counter <= storedCounter {
            throw AppAttestError(.assertionCounterReplay, detail: "\(parsed.counter) <= \(storedCounter)")
        }
        let nonce = Digest.sha256(parts: [authData, clientDataHash])
        guard publicKey.curve == .p256, publicKey.isValidSHA256Signature(signature, for: nonce) else {
            throw AppAttestError(.assertionBadSignature)
        }
        return VerifiedAssertion(counter: parsed.counter, appId: matched)
    }

    /// `verifyAssertion` with the key as stored: DER SubjectPublicKeyInfo or a 65-byte X9.62 point.
    /// - Throws: `appattest.key_unsupported` for a stored key that is not P-256, else as above.
    package func verifyAssertion(
        publicKeyBytes: [UInt8],
        assertion: [UInt8],
        clientDataHash: [UInt8],
        storedCounter: UInt32
    ) throws(AppAttestError) -> UInt32 {
        let key = try storedKeys.key(for: publicKeyBytes)
        return try verifyAssertion(
            publicKey: key,
            assertion: assertion,
            clientDataHash: clientDataHash,
            storedCounter: storedCounter
        )
    }
}

/// What a verified assertion showed: its signed counter and the App ID whose rpIdHash it carries.
package struct VerifiedAssertion: Sendable, Hashable {
    package let counter: UInt32
    package let appId: AppID
}
