package import AppAttest
package import AttestCore
internal import Crypto
package import FoundationEssentials
package import PlayIntegrity
internal import WireContract

/// A non-binding fallback check (DeviceCheck): it proves a genuine Apple device made the token, but
/// cannot tie it to the device ID, so it is consulted only on routes that opt in (`deviceCheckFallback`),
/// only when no binding provider could answer, and only after the call spent its challenge.
package protocol FallbackDeviceCheck: Sendable {
    /// Asks Apple about `token`, paid from `deviceID`'s daily DeviceCheck budget.
    /// - Returns: the answer and, unless genuine, a reason slug for logs.
    func check(token: String, deviceID: String, now: Date) async -> ProviderMerge.Answer
}

/// Layer 1 on a metered call: spend the challenge, verify the App Attest assertion or the Play
/// Integrity token against the request, fall back to DeviceCheck where the route allows it, and merge
/// the answers with `ProviderMerge.evaluate` (the order of docs/gate.md).
///
/// The challenge is spent before any cryptography and before any provider is asked, so a stolen proof
/// cannot be ground against one live challenge and every call to Google or Apple costs a fresh,
/// single-use challenge issued to this device ID. Nothing in the request can produce `unavailable`: only
/// our stores can (a provider's outage the merge turns into `rejected`, still counted as unavailable).
package struct LayerOneEvidence: EvidenceSource {
    let challenges: any ChallengeStore
    let keys: any AppAttestKeyStore
    let appAttest: AppAttestVerifier?
    let play: PlayIntegrityVerifier?
    let deviceCheck: (any FallbackDeviceCheck)?
    /// The fraud-risk metric's daily refresh (nil: device marks off).
    let risk: (any RiskRefreshing)?
    let logger: Logger

    package init(
        challenges: any ChallengeStore,
        keys: any AppAttestKeyStore,
        appAttest: AppAttestVerifier?,
        play: PlayIntegrityVerifier?,
        deviceCheck: (any FallbackDeviceCheck)?,
        risk: (any RiskRefreshing)? = nil,
        logger: Logger
    ) {
        self.challenges = challenges
        self.keys = keys
        self.appAttest = appAttest
        self.play = play
        self.deviceCheck = deviceCheck
        self.risk = risk
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
        let deviceCheckToken =
            route.deviceCheckFallback && deviceCheck != nil ? request.header(Header.deviceCheck) : nil
        let first: GateEvidence.ProofKind =
            appleAsked ? .appAttest : playAsked ? .playIntegrity : deviceCheckToken != nil ? .deviceCheck : .none
        // No proof at all: nothing is spent and nobody is asked.
        guard first != .none else { return EvidenceReport(evidence: .absent) }

        // One challenge per call, spent before anything is verified; the key is read at the same time.
        guard let challengeText = request.header(Header.challenge), let challenge = Bytes.fromBase64(challengeText),
            challenge.count == challengeByteCount
        else { return EvidenceReport(evidence: .rejected(proof: first, reason: GateReason.challengeMalformed.slug)) }
        async let spentResult = Result(catching: {
            try await challenges.spend(deviceID: deviceID, challenge: challenge, now: now)
        })
        async let keyResult = Result(catching: {
            appleAsked ? try await keys.lookup(deviceID: deviceID) : (key: nil, profile: nil)
        })
        let (spent, lookup) = await (spentResult, keyResult)
        // The profile and whether a key is held, for metering by tier even when this call is refused (monitor).
        let looked = appleAsked ? try? lookup.get() : nil
        var tierReport = EvidenceReport(evidence: .absent, profile: looked?.profile, attestedKey: looked?.key != nil)
        tierReport.keyBlocked = looked?.key?.blocked ?? false

        // Our own store could not spend the challenge: the proof is still verified, and only one that
        // verifies is our outage for the route's onUnavailable to decide; anything else is refused. A client
        // that heats its own partition cannot turn headers that prove nothing into an admission
        // (docs/gate.md, "Failure policy").
        var spendFailure: String?
        switch spent {
        case .failure(let error):
            spendFailure = MeteredCall.slug(error)
        case .success(false):
            return tierReport.with(.rejected(proof: first, reason: GateReason.challengeUnspendable.slug))
        case .success(true):
            break
        }

        // What a binding proof must cover: the client-data document (request binding) or the challenge alone.
        // DeviceCheck binds nothing, so a call carrying only its token needs no client data.
        var binding: Binding?
        if appleAsked || playAsked {
            switch Self.binding(request, mode: route.binding, deviceID: deviceID, challenge: challenge, challengeText) {
            case .success(let bound):
                binding = bound
            case .failure(let refusal):
                return tierReport.with(
                    .rejected(proof: first, reason: refusal.reason),
                    spentChallenge: spendFailure == nil
                )
            }
        }

        var playCheck: PlayCheck?
        let merged = await ProviderMerge.evaluate(
            appAttest: {
                guard appleAsked, let binding else { return nil }
                switch lookup {
                case .failure(let error): return .unavailable(MeteredCall.slug(error))
                case .success(let (key, _)):
                    return await verifyAssertion(
                        request,
                        deviceID: deviceID,
                        key: key,
                        clientDataHash: binding.clientDataHash
                    )
                }
            },
            playIntegrity: {
                guard playAsked, let binding else { return nil }
                playCheck = await verifyPlay(
                    request,
                    deviceID: deviceID,
                    route: route,
                    requestHash: binding.requestHash,
                    now: now
                )
                return playCheck.map { ProviderMerge.Answer($0.result) }
            },
            deviceCheck: {
                guard let deviceCheck, let deviceCheckToken else { return nil }
                return await deviceCheck.check(token: deviceCheckToken, deviceID: deviceID, now: now)
            }
        )
        // The fraud-risk metric's daily refresh, for a genuine App Attest call whose key row says it is due;
        // decided from the row `lookup` read, so a call that is not due costs no request.
        var recordedTier: RecordedTier?
        if let risk, merged.outcome == .genuine, merged.decidedBy == .appAttest, case .success(let (key?, _)) = lookup,
            risk.isDue(key, now: now)
        {
            recordedTier = await risk.refresh(
                deviceID: deviceID,
                key: key,
                storedTier: tierReport.profile?.tier,
                deviceCheckToken: request.header(Header.deviceCheck),
                now: now
            )
        }
        if merged.unavailableRejected {
            logger.warning(
                "attestation provider unavailable",
                [
                    "provider": .string(merged.decidedBy?.rawValue ?? "none"),
                    "reason": .string(merged.reason ?? "unavailable"),
                ]
            )
        }
        var evidence = Self.evidence(merged)
        if let spendFailure {
            switch evidence {
            case .genuine(let proof): evidence = .unavailable(proof: proof, reason: spendFailure)
            case .rejected: break
            case .unavailable(let proof, _): evidence = .rejected(proof: proof, reason: spendFailure)
            case .absent: evidence = .rejected(proof: first, reason: spendFailure)
            }
        }
        var report = EvidenceReport(
            evidence: evidence,
            spentChallenge: spendFailure == nil,
            profile: tierReport.profile,
            attestedKey: tierReport.attestedKey,
            recordedTier: recordedTier,
            providerUnavailable: merged.unavailableRejected
        )
        report.keyBlocked = tierReport.keyBlocked
        if spendFailure == nil, merged.passes, merged.decidedBy == .playIntegrity, let playCheck,
            let token = request.header(Header.playToken)
        {
            report.playRecall = PlayRecallEvidence(recall: playCheck.recall, integrityToken: token)
        }
        return report
    }

    struct Binding {
        let clientDataHash: [UInt8]
        let requestHash: String
    }

    struct BindingRefusal: Error {
        let reason: String
    }

    /// The hashes a binding proof must carry, or the request-binding check that failed.
    static func binding(
        _ request: MeteredRequest,
        mode: BindingMode,
        deviceID: String,
        challenge: [UInt8],
        _ challengeText: String
    ) -> Swift.Result<Binding, BindingRefusal> {
        switch mode {
        case .request:
            guard let header = request.header(Header.clientData), let clientData = ClientData(header: header) else {
                return .failure(BindingRefusal(reason: GateReason.clientDataMalformed.slug))
            }
            if let mismatch = clientData.mismatch(
                challengeHeader: challengeText,
                method: request.method,
                rawPath: request.rawPath,
                body: request.body
            ) {
                return .failure(BindingRefusal(reason: mismatch))
            }
            return .success(
                Binding(clientDataHash: clientData.appAttestClientDataHash, requestHash: clientData.playRequestHash)
            )
        case .challenge:
            return .success(
                Binding(
                    clientDataHash: ChallengeBinding.appAttestClientDataHash(challenge: challenge),
                    requestHash: ChallengeBinding.playRequestHash(deviceID: deviceID, challengeBase64: challengeText)
                )
            )
        }
    }

    /// The merged answer as the gate's evidence.
    static func evidence(_ merged: ProviderMerge.Result) -> GateEvidence {
        let proof: GateEvidence.ProofKind =
            switch merged.decidedBy {
            case .appAttest: .appAttest
            case .playIntegrity: .playIntegrity
            case .deviceCheck: .deviceCheck
            case nil: .none
            }
        switch merged.outcome {
        case .genuine: return .genuine(proof: proof)
        case .rejected: return .rejected(proof: proof, reason: merged.reason ?? "\(proof.rawValue).rejected")
        case .unavailable: return .unavailable(proof: proof, reason: merged.reason ?? "\(proof.rawValue).unavailable")
        case nil: return .absent
        }
    }

    /// App Attest's answer for a call whose challenge was just spent (the caller's precondition).
    private func verifyAssertion(
        _ request: MeteredRequest,
        deviceID: String,
        key: StoredAppAttestKey?,
        clientDataHash: [UInt8]
    ) async -> ProviderMerge.Answer {
        guard let verifier = appAttest, let key else { return .rejected(GateReason.noRegisteredKey.slug) }
        guard let keyID = request.header(Header.keyID).flatMap({ Bytes.fromBase64($0) }),
            ConstantTime.equal(keyID, key.keyId)
        else { return .rejected(GateReason.keyNotRegistered.slug) }
        guard let header = request.header(Header.assertion), header.utf8.count <= Self.maxAssertionHeader,
            let assertion = Bytes.fromBase64(header)
        else { return .rejected(GateReason.assertionMalformed.slug) }
        // The stored key's own environment and App ID, not only the configured ones (docs/gate.md, "Counter races"):
        // a key attested under other settings is not accepted under these.
        guard key.environment == verifier.environment.rawValue else {
            return .rejected(GateReason.keyEnvironmentMismatch.slug)
        }
        var pinned: AppID?
        if let stored = key.appId {
            guard let served = verifier.appIds.first(where: { $0.string == stored }) else {
                return .rejected(GateReason.keyAppIDMismatch.slug)
            }
            pinned = served
        }
        let verified: VerifiedAssertion
        do {
            let publicKey = try ECPublicKey(derOrX962: key.publicKey)
            // No counter bound here: the signature covers a challenge this call has just spent, which is what
            // proves it fresh; the stored counter is only the high-water mark (docs/gate.md, "Counter races").
            verified = try verifier.verify(
                assertion: assertion,
                publicKey: publicKey,
                clientDataHash: clientDataHash,
                counterAbove: nil,
                appId: pinned
            )
        } catch let error as AppAttestError {
            return .rejected(error.reason.slug)
        } catch {
            return .rejected(GateReason.storedKeyUnusable.slug)
        }
        // Same key and strictly increasing in the write's condition; a row without an App ID gets this one.
        let advance: CounterAdvance
        do {
            advance = try await keys.advanceCounter(
                deviceID: deviceID,
                keyId: key.keyId,
                to: verified.counter,
                appId: key.appId == nil ? verified.appId.string : nil
            )
        } catch {
            return .unavailable(MeteredCall.slug(error))
        }
        switch advance {
        case .advanced:
            return .genuine
        case .behind:
            // Another genuine call of this key landed first (out of order, or between our write and its
            // resend). This call's own challenge was just spent, so it cannot be a replay.
            logger.info(
                "app attest counter behind the stored one, accepted on a spent challenge",
                ["device": .string(Subject.device(deviceID).logSuffix), "counter": .int(Int64(verified.counter))]
            )
            return .genuine
        case .keyReplaced:
            return .rejected(GateReason.counterNotAdvanced.slug)
        }
    }

    private func verifyPlay(
        _ request: MeteredRequest,
        deviceID: String,
        route: MeteredRoute,
        requestHash: String,
        now: Date
    ) async -> PlayCheck? {
        guard let play, let token = request.header(Header.playToken) else { return nil }
        return await play.check(
            token: token,
            deviceID: deviceID,
            expectedRequestHash: requestHash,
            deviceIntegrity: route.requireStrongIntegrity ? .strong : nil,
            maxDeviceActivity: route.maxDeviceActivity,
            now: now
        )
    }
}

extension EvidenceReport {
    /// This report's profile and key with another evidence.
    fileprivate func with(_ evidence: GateEvidence, spentChallenge: Bool = false) -> EvidenceReport {
        var report = self
        report.evidence = evidence
        report.spentChallenge = spentChallenge
        return report
    }
}

extension Result where Failure == any Error {
    init(catching body: () async throws -> Success) async {
        do { self = .success(try await body()) } catch { self = .failure(error) }
    }
}
