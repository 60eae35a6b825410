import Foundation
import Testing

@testable import AttestGateClient

/// A whole app life through the real `bootstrap` (local-harness/client_stack.py, routes in
/// Fixtures/routes.json: `/v1/generate` enforce with an allowance of 3, the tutor routes enforce (one
/// streamed), `/v1/ask` monitor), with the simulated Secure Enclave standing in for Apple's frameworks and the
/// real `URLSessionTransport`. Each test is an install of its own (its own device ID), so allowances never mix.
@Suite(.enabled(if: LocalStack.isAvailable, "needs the local stack: make swift-client-check"))
struct AppLifeStackTests {
    let generate = "/v1/generate"
    let tutor = "/v1/tutor/deck-biology/card-7"
    let cards = Array(#"{"text":"Mitochondria make ATP. Ribosomes build proteins.","cards":2}"#.utf8)
    let question = Array(#"{"question":"Why is ATP called the energy currency?"}"#.utf8)

    func text(_ outcome: Outcome) -> String {
        if case .served(let answer) = outcome { return answer.text }
        return "\(outcome)"
    }

    @Test func anInstallRegistersItsKeyThenProvesEachCallAndReusesTheNextChallenge() async throws {
        let install = try StackInstall()
        let client = install.client()
        #expect(await client.prepare() == .registered(binding: "bound"))
        let first = await client.post(generate, body: cards)
        let second = await client.post(generate, body: cards)
        #expect(first.isServed() && text(first).contains("\"cards\""), "\(first)")
        #expect(first.quotaRemaining == 2 && second.quotaRemaining == 1)
        // One challenge for the registration, one for the first call; the second used the first's next one.
        #expect(install.transport.sent(to: ServerAPI.challengePath).count == 2)
        let calls = install.transport.sent(to: generate)
        #expect(calls.map(\.status) == [200, 200])
        #expect(calls[0].request.header("X-Attest-Challenge") != calls[1].request.header("X-Attest-Challenge"))
        // The next launch keeps the key: nothing registered again.
        #expect(await install.client().prepare() == .alreadyRegistered)
    }

    @Test func theAllowanceEndsInQuotaExhaustedWithRetryAfter() async throws {
        let install = try StackInstall()
        let client = install.client()
        for _ in 0..<3 { #expect(await client.post(generate, body: cards).isServed()) }
        guard case .quotaExhausted(let retryAfter?, 0) = await client.post(generate, body: cards) else {
            Issue.record("expected quotaExhausted with Retry-After")
            return
        }
        #expect(retryAfter >= 0 && retryAfter <= 86_400)
        #expect(install.transport.sent(to: generate).count == 4)  // never retried
    }

    @Test func aReinstallKeepsTheDeviceIDAndRebindsANewKey() async throws {
        let install = try StackInstall()
        #expect(await install.client().post(generate, body: cards).isServed())
        try await install.enclave.reinstall()  // the keys go; the Keychain, with the device ID, stays
        let reinstalled = install.client()
        #expect(await reinstalled.post(generate, body: cards).isServed())
        #expect(install.lastBinding == "rebound")
        let keys = Set(install.transport.sent(to: generate).compactMap { $0.request.header("X-App-Attest-Key-Id") })
        #expect(keys.count == 2)
        #expect(install.events.events.contains(.keyReset(reason: "appattest.invalid_key")))
    }

    @Test func aKeyAppleRejectsIsResetAndReRegistered() async throws {
        let install = try StackInstall()
        let client = install.client()
        #expect(await client.post(tutor, body: question).isServed())
        let first = try #require(install.transport.sent(to: tutor).first?.request.header("X-App-Attest-Key-Id"))
        try await install.enclave.invalidate(first)
        #expect(await client.post(tutor, body: question).isServed())
        #expect(install.lastBinding == "rebound")
        #expect(install.transport.sent(to: tutor).last?.request.header("X-App-Attest-Key-Id") != first)
    }

    @Test func aReplayedCallIsRefused() async throws {
        let install = try StackInstall()
        #expect(await install.client().post(tutor, body: question).isServed())
        let sent = try #require(install.transport.sent(to: tutor).first?.request)
        let replayed = try await URLSessionTransport().send(sent)
        let body = try await replayed.body.collect(limit: 4096)
        #expect(replayed.status == 403)
        #expect(Answers.errorCode(body) == "attestation_required")
    }

    @Test func aChallengeTheServerDoesNotKnowIsRecoveredOnceWithAFreshOne() async throws {
        let install = try StackInstall()
        let client = install.client()
        #expect(await client.prepare() == .registered(binding: "bound"))
        // A challenge issued to another device ID (an app that changed its ID and kept its pool).
        let other = try StackInstall()
        var once = Retrier(policy: .none, clock: SystemClientClock(), jitter: { 0 }, onEvent: nil)
        let stale = await other.client().api.challenge(&once)
        guard case .issued(let challenge) = stale else {
            Issue.record("no challenge")
            return
        }
        await client.api.pool.offer(challenge)
        #expect(await client.post(tutor, body: question).isServed())
        let calls = install.transport.sent(to: tutor)
        #expect(calls.map(\.status) == [403, 200])
        #expect(calls[0].request.header("X-Attest-Challenge") == challenge.value)
        #expect(install.events.events.contains(.recovery(step: 1)))
    }

    @Test func aKeyTheServerNeverBoundIsReplacedAfterTwoRefusalsAndTheCallServed() async throws {
        let install = try StackInstall()
        // An attested key whose registration never reached the server, recorded as registered (a lost answer
        // and an app killed before its resend): the server refuses its proofs.
        let keyID = try await install.enclave.generateKey()
        _ = try await install.enclave.attestKey(keyID, clientDataHash: SHA256.hash(Array("never sent".utf8)))
        let record = KeyRecord(keyID: keyID, phase: .registered)
        try await install.store.write(KeyRegistrar.recordName, [UInt8](try JSONEncoder().encode(record)))
        #expect(await install.client().post(tutor, body: question).isServed())
        let calls = install.transport.sent(to: tutor)
        #expect(calls.map(\.status) == [403, 403, 200])
        #expect(calls[2].request.header("X-App-Attest-Key-Id") != keyID)
        #expect(install.lastBinding == "bound")
    }

    @Test func parallelCallsOnOneKeyAreSignedOneAtATimeAndAllServed() async throws {
        let install = try StackInstall()
        let probe = AssertionProbe(install.enclave)
        let client = install.client(appAttest: probe)
        #expect(await client.prepare() == .registered(binding: "bound"))
        let question = question
        let tutor = tutor
        let served = await withTaskGroup(of: Bool.self) { group in
            for _ in 0..<4 { group.addTask { await client.post(tutor, body: question).isServed() } }
            var count = 0
            for await ok in group where ok { count += 1 }
            return count
        }
        #expect(served == 4)
        #expect(await probe.assertions == 4)
        #expect(await probe.maxInFlight == 1)
    }

    @Test func aStreamedAnswerArrivesAsAnAsyncSequenceOfEvents() async throws {
        let install = try StackInstall()
        let body = Array(#"{"stream":true,"question":"Why is the sky blue?","events":6,"intervalMs":40}"#.utf8)
        guard
            case .streamed(let events, let remaining) = await install.client().stream(
                "POST",
                "/v1/tutor/stream",
                body: body
            )
        else {
            Issue.record("expected a stream")
            return
        }
        #expect(remaining == 19)
        var data: [String] = []
        for try await event in events { data.append(event.data) }
        #expect(data.count >= 6)
        #expect(data.last == "[DONE]")
    }

    @Test func theDailyCeilingRefusesWithDailyBudgetExhausted() async throws {
        let install = try StackInstall()
        let client = install.client(front: LocalStack.ceilingFront)
        var outcomes: [Outcome] = []
        for _ in 0..<4 { outcomes.append(await client.post(tutor, body: question)) }
        #expect(outcomes.prefix(3).allSatisfy { $0.isServed() })
        guard case .dailyBudgetExhausted(let retryAfter?) = outcomes[3] else {
            Issue.record("expected dailyBudgetExhausted, got \(outcomes[3])")
            return
        }
        #expect(retryAfter >= 0 && retryAfter <= 86_400)
    }

    @Test func aBlockedDeviceGetsDeviceBlockedAndIsNotRetried() async throws {
        let install = try StackInstall()
        let client = install.client()
        #expect(await client.post(tutor, body: question).isServed())
        let blocked = try LocalStack.operatorCLI(["device", "block", install.deviceID, "--reason", "test.client"])
        #expect(blocked.status == 0, "\(blocked.output)")
        guard case .deviceBlocked = await client.post(tutor, body: question) else {
            Issue.record("expected deviceBlocked")
            return
        }
        #expect(install.transport.sent(to: tutor).count == 2)
    }

    @Test func withoutAppAttestAMonitorRouteServesAndAnEnforceRouteSaysUnavailable() async throws {
        let install = try StackInstall()
        try await install.enclave.setSupported(false)
        let client = install.client()
        #expect(await client.post("/v1/ask", body: question).isServed())
        guard case .attestationUnavailable(let missing) = await client.post(tutor, body: question) else {
            Issue.record("expected attestationUnavailable")
            return
        }
        #expect(missing == MissingEvidence(.featureUnsupported))
        #expect(install.transport.sent(to: tutor).count == 1)  // no loop
        #expect(install.transport.sent(to: ServerAPI.keysPath).isEmpty)
    }

    @Test func anAttestationAppleCouldNotCompleteIsRetriedWithTheSameHashAndRegisters() async throws {
        let install = try StackInstall()
        try await install.enclave.failAttestations(2)
        #expect(await install.client().prepare() == .registered(binding: "bound"))
        #expect(install.events.events.filter { $0 == .attestationDeferred }.count == 2)
    }
}
