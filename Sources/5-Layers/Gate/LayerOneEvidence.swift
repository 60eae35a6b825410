package import AppAttest
package import AttestCore
internal import Crypto
package import FoundationEssentials
package import PlayIntegrity
internal import WireContract

/// A non-binding fallback check (DeviceCheck): it proves a genuine Apple device made the token, but
/// cannot tie it to the device ID, so it is consulted only when no binding provider could answer.
package protocol FallbackDeviceCheck: Sendable {
    /// - Returns: the outcome and a reason slug for logs (nil when genuine).
    func check(token: String, now: Date) async -> (AttestationOutcome, String?)
}

/// Layer 1 on a metered call: spend the challenge, verify the App Attest assertion or the Play
/// Integrity token against the request, fall back to DeviceCheck, merge (seeds/000 section 8).
///
/// The challenge is spent before any cryptography, so a stolen proof cannot be ground against one live
/// challenge. Nothing in the request can produce `unavailable`: only our stores and the providers'
/// outages can.
package struct LayerOneEvidence: EvidenceSource {
    let challenges: any ChallengeStore
    let keys: any AppAttestKeyStore
    let appAttest: AppAttestVerifier?
    let play: PlayIntegrityVerifier?
    let deviceCheck: (any FallbackDeviceCheck)?
    let logger: Logger

    package init(
        challenges: any ChallengeStore,
        keys: any AppAttestKeyStore,
        appAttest: AppAttestVerifier?,
        play: PlayIntegrityVerifier?,
        deviceCheck: (any FallbackDeviceCheck)?,
        logger: Logger
    ) {
        self.challenges = challenges
        self.keys = keys
        self.appAttest = appAttest
        self.play = play
        self.deviceCheck = deviceCheck
        self.logger = logger
    }

    /// The proof headers (docs/api.md), as the server reads them (`WireHeader.key`).
    enum Header {
        static let challenge = WireHeader.challenge.key
        static let keyID = WireHeader.appAttestKeyID.key
        static let assertion = WireHeader.appAttestAssertion.key
        static let playToken = WireHeader.playIntegrityToken.key
        static let deviceCheck = WireHeader.deviceCheckToken.key
        static let clientData = WireHeader.clientData.key
    }

    /// Proof headers are short; anything longer is refused before it is decoded.
    static let maxAssertionHeader = 8 * 1024

    package func evaluate(
        request: MeteredRequest,
        deviceID: String,
        route: MeteredRoute,
        now: Date
    ) async -> EvidenceReport {
        let appleAsked =
            appAttest != nil && request.header(Header.keyID) != nil && request.header(Header.assertion) != nil
        let playAsked = !appleAsked && play != nil && request.header(Header.playToken) != nil
        guard appleAsked || playAsked else {
            return EvidenceReport(evidence: await fallback(request, now: now))
        }
        let proof: GateEvidence.ProofKind = appleAsked ? .appAttest : .playIntegrity

        // One challenge per call, spent before anything is verified; the key is read at the same time.
        guard let challengeText = request.header(Header.challenge), let challenge = Bytes.fromBase64(challengeText),
            challenge.count == challengeByteCount
        else { return EvidenceReport(evidence: .rejected(proof: proof, reason: GateReason.challengeMalformed.slug)) }
        async let spentResult = Result(catching: {
            try await challenges.spend(deviceID: deviceID, challenge: challenge, now: now)
        })
        async let keyResult = Result(catching: { appleAsked ? try await keys.lookup(deviceID: deviceID) : (nil, nil) })
        let (spent, lookup) = await (spentResult, keyResult)

        switch spent {
        case .failure(let error):
            return EvidenceReport(evidence: .unavailable(proof: proof, reason: MeteredCall.slug(error)))
        case .success(false):
            return EvidenceReport(evidence: .rejected(proof: proof, reason: GateReason.challengeUnspendable.slug))
        case .success(true):
            break
        }

        // What the proof must cover: the client-data document (request binding) or the challenge alone.
        let binding: Binding
        switch route.binding {
        case .request:
            guard let header = request.header(Header.clientData), let clientData = ClientData(header: header) else {
                return EvidenceReport(
                    evidence: .rejected(proof: proof, reason: GateReason.clientDataMalformed.slug),
                    spentChallenge: true
                )
            }
            if let mismatch = clientData.mismatch(
                challengeHeader: challengeText,
                method: request.method,
                rawPath: request.rawPath,
                body: request.body
            ) {
                return EvidenceReport(evidence: .rejected(proof: proof, reason: mismatch), spentChallenge: true)
            }
            binding = Binding(
                clientDataHash: clientData.appAttestClientDataHash,
                requestHash: clientData.playRequestHash
            )
        case .challenge:
            binding = Binding(
                clientDataHash: ChallengeBinding.appAttestClientDataHash(challenge: challenge),
                requestHash: ChallengeBinding.playRequestHash(deviceID: deviceID, challengeBase64: challengeText)
            )
        }

        if appleAsked {
            var evidence: GateEvidence
            var firstSeen: String?
            switch lookup {
            case .failure(let error):
                evidence = .unavailable(proof: proof, reason: MeteredCall.slug(error))
            case .success(let (key, seen)):
                firstSeen = seen
                evidence = await verifyAssertion(
                    request,
                    deviceID: deviceID,
                    key: key,
                    clientDataHash: binding.clientDataHash
                )
            }
            // App Attest could not answer (our store failed): DeviceCheck may decide, as the merge allows.
            if case .unavailable = evidence {
                switch await fallback(request, now: now) {
                case .genuine(let kind): evidence = .genuine(proof: kind)
                case .rejected(let kind, let reason): evidence = .rejected(proof: kind, reason: reason)
                case .unavailable, .absent: break
                }
            }
            return EvidenceReport(evidence: evidence, spentChallenge: true, firstSeen: firstSeen)
        }
        let (evidence, unavailable) = await verifyPlay(
            request,
            deviceID: deviceID,
            route: route,
            requestHash: binding.requestHash,
            now: now
        )
        return EvidenceReport(evidence: evidence, spentChallenge: true, providerUnavailable: unavailable)
    }

    struct Binding {
        let clientDataHash: [UInt8]
        let requestHash: String
    }

    private func verifyAssertion(
        _ request: MeteredRequest,
        deviceID: String,
        key: StoredAppAttestKey?,
        clientDataHash: [UInt8]
    ) async -> GateEvidence {
        guard let verifier = appAttest, let key else {
            return .rejected(proof: .appAttest, reason: GateReason.noRegisteredKey.slug)
        }
        guard let keyID = request.header(Header.keyID).flatMap({ Bytes.fromBase64($0) }),
            ConstantTime.equal(keyID, key.keyId)
        else {
            return .rejected(proof: .appAttest, reason: GateReason.keyNotRegistered.slug)
        }
        guard let header = request.header(Header.assertion), header.utf8.count <= Self.maxAssertionHeader,
            let assertion = Bytes.fromBase64(header)
        else { return .rejected(proof: .appAttest, reason: GateReason.assertionMalformed.slug) }
        let counter: UInt32
        do {
            let publicKey = try ECPublicKey(derOrX962: key.publicKey)
            counter = try verifier.verifyAssertion(
                publicKey: publicKey,
                assertion: assertion,
                clientDataHash: clientDataHash,
                storedCounter: key.counter
            )
        } catch let error as AppAttestError {
            return .rejected(proof: .appAttest, reason: error.reason.slug)
        } catch {
            return .rejected(proof: .appAttest, reason: GateReason.storedKeyUnusable.slug)
        }
        // The comparison lives in the write's condition: two Lambdas with the same assertion cannot both pass.
        do {
            guard try await keys.advanceCounter(deviceID: deviceID, keyId: key.keyId, to: counter) else {
                return .rejected(proof: .appAttest, reason: GateReason.counterNotAdvanced.slug)
            }
        } catch {
            return .unavailable(proof: .appAttest, reason: MeteredCall.slug(error))
        }
        return .genuine(proof: .appAttest)
    }

    private func verifyPlay(
        _ request: MeteredRequest,
        deviceID: String,
        route: MeteredRoute,
        requestHash: String,
        now: Date
    ) async -> (GateEvidence, providerUnavailable: Bool) {
        guard let play, let token = request.header(Header.playToken) else {
            return (.rejected(proof: .playIntegrity, reason: GateReason.playNotConfigured.slug), false)
        }
        let result = await play.verify(
            token: token,
            deviceID: deviceID,
            expectedRequestHash: requestHash,
            deviceIntegrity: route.requireStrongIntegrity ? .strong : nil,
            now: now
        )
        // seeds/000 section 8: once Play Integrity was asked only GENUINE passes; its UNAVAILABLE is
        // reachable by a caller (junk tokens, Google's quota) and so becomes REJECTED.
        let merged = ProviderMerge.merge(appAttest: nil, playIntegrity: result.outcome, deviceCheck: nil)
        let reason = result.reason?.slug ?? GateReason.playRejected.slug
        if merged.bindingUnavailableRejected {
            logger.warning(
                "attestation binding unavailable",
                ["provider": .string("play_integrity"), "reason": .string(reason)]
            )
            return (.rejected(proof: .playIntegrity, reason: reason), true)
        }
        return (
            merged.passes ? .genuine(proof: .playIntegrity) : .rejected(proof: .playIntegrity, reason: reason), false
        )
    }

    /// DeviceCheck, consulted only when no binding provider answered. Switched off, it abstains: a token
    /// with nobody to check it is no proof at all (never `unavailable`, the seed's DEF-6 bug).
    private func fallback(_ request: MeteredRequest, now: Date) async -> GateEvidence {
        guard let deviceCheck, let token = request.header(Header.deviceCheck) else { return .absent }
        let (outcome, reason) = await deviceCheck.check(token: token, now: now)
        switch ProviderMerge.merge(appAttest: nil, playIntegrity: nil, deviceCheck: outcome).outcome {
        case .genuine: return .genuine(proof: .deviceCheck)
        case .unavailable:
            return .unavailable(proof: .deviceCheck, reason: reason ?? GateReason.deviceCheckUnavailable.slug)
        case .rejected, nil:
            return .rejected(proof: .deviceCheck, reason: reason ?? GateReason.deviceCheckRejected.slug)
        }
    }
}

extension Result where Failure == any Error {
    init(catching body: () async throws -> Success) async {
        do { self = .success(try await body()) } catch { self = .failure(error) }
    }
}
