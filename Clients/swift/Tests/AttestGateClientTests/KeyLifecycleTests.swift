import Testing

@testable import AttestGateClient

/// The key's lifecycle without I/O: each event moves it, `next(now:)` says what to do.
@Suite struct KeyLifecycleTests {
    let challenge = Challenge(value: "Y2hhbGxlbmdl", expiresAt: 1_300)
    let hash: [UInt8] = [1, 2, 3]

    @Test func generateOnceAttestOnceRegisterThenUse() {
        var key = KeyLifecycle()
        #expect(key.next(now: 1_000) == .generateKey)
        key.keyGenerated("K")
        #expect(key.next(now: 1_000) == .attest(keyID: "K", retry: nil))
        key.attested([9], challenge: challenge)
        #expect(key.next(now: 1_000) == .register(keyID: "K", attestation: [9], challenge: challenge.value))
        key.registered()
        #expect(key.next(now: 1_000) == .use(keyID: "K"))
        #expect(key.isRegistered)
    }

    @Test func serverUnavailableIsRetriedWithTheSameKeyAndHashWhileItsChallengeLives() {
        var key = KeyLifecycle(record: KeyRecord(keyID: "K", phase: .generated))
        key.attestationDeferred(challenge: challenge, clientDataHash: hash)
        let retry = KeyLifecycle.AttestRetry(challenge: challenge, clientDataHash: hash)
        #expect(key.next(now: 1_000) == .attest(keyID: "K", retry: retry))
        // Within the margin of the challenge's expiry: the same key, a new challenge (and so a new hash).
        #expect(key.next(now: 1_290) == .attest(keyID: "K", retry: nil))
    }

    @Test func anAttestedKeyWhoseChallengeExpiredIsUsedNeverAttestedAgain() {
        let key = KeyLifecycle(
            record: KeyRecord(
                keyID: "K",
                phase: .attested(attestation: [9], challenge: "c", expiresAt: 1_300, sent: false)
            )
        )
        #expect(key.next(now: 1_290) == .use(keyID: "K"))
    }

    @Test func aRefusedFirstRegistrationForgetsTheKeyButARefusedResendKeepsIt() {
        var first = KeyLifecycle(record: KeyRecord(keyID: "K", phase: .generated))
        first.attested([9], challenge: challenge)
        first.registrationRejected()
        #expect(first.record == nil)
        #expect(first.next(now: 1_000) == .generateKey)

        var resent = KeyLifecycle(record: KeyRecord(keyID: "K", phase: .generated))
        resent.attested([9], challenge: challenge)
        resent.registrationAnswerLost()
        #expect(resent.next(now: 1_000) == .register(keyID: "K", attestation: [9], challenge: challenge.value))
        resent.registrationRejected()  // most likely the challenge the lost registration spent
        #expect(resent.record?.phase == .unconfirmed)
        #expect(resent.next(now: 1_000) == .use(keyID: "K"))
        #expect(!resent.isRegistered)
    }

    @Test func aRejectedKeyIsForgottenFromAnyPhase() {
        for phase: KeyRecord.Phase in [.generated, .registered, .unconfirmed] {
            var key = KeyLifecycle(record: KeyRecord(keyID: "K", phase: phase))
            key.keyRejected()
            #expect(key.next(now: 0) == .generateKey)
        }
    }
}
