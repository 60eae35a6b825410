import Testing

@testable import AttestGateClient

/// `403 attestation_required` after a proof (docs/operations.md section 1): once more with a fresh
/// challenge, then with a new key, then `attestationRequired`. At most three proved requests a call.
@Suite struct RecoveryFlowTests {
    @Test func oneRefusalIsRecoveredWithAFreshChallengeAndTheSameKey() async {
        let h = Harness()
        await h.server.set(refuseValidProofs: 1)
        #expect(await h.client().post("/v1/generate", body: generateBody).isServed())
        let calls = await h.server.sent(to: "/v1/generate")
        #expect(calls.count == 2)
        #expect(calls[0].header(WireHeader.challenge) != calls[1].header(WireHeader.challenge))
        #expect(calls[0].header(WireHeader.appAttestKeyID) == calls[1].header(WireHeader.appAttestKeyID))
        #expect(h.events.events.contains(.recovery(step: 1)))
    }

    @Test func twoRefusalsRenewTheKeyAndTheThirdRequestIsServed() async {
        let h = Harness()
        await h.server.set(refuseValidProofs: 2)
        #expect(await h.client().post("/v1/generate", body: generateBody).isServed())
        let calls = await h.server.sent(to: "/v1/generate")
        #expect(calls.count == 3)
        #expect(calls[1].header(WireHeader.appAttestKeyID) != calls[2].header(WireHeader.appAttestKeyID))
        #expect(await h.server.registrations.map(\.binding) == ["bound", "rebound"])
    }

    @Test func threeRefusalsEndInAttestationRequiredAfterExactlyThreeProvedRequests() async {
        let h = Harness()
        await h.server.set(refuseValidProofs: 100)
        let client = h.client()
        guard case .attestationRequired = await client.post("/v1/generate", body: generateBody) else {
            Issue.record("expected attestationRequired")
            return
        }
        #expect(await h.server.sent(to: "/v1/generate").count == 3)
        #expect(await h.enclave.generatedKeys == 2)
        #expect(h.clock.sleeps.isEmpty)  // a refusal is never waited on and retried
        // The next call starts over, bounded the same way.
        _ = await client.post("/v1/generate", body: generateBody)
        #expect(await h.server.sent(to: "/v1/generate").count == 6)
    }

    @Test func aBlockedDeviceIsNeverRetried() async {
        let h = Harness()
        await h.server.script("/v1/generate", .answer(status: 403, body: #"{"error":"device_blocked"}"#))
        guard case .deviceBlocked = await h.client().post("/v1/generate", body: generateBody) else {
            Issue.record("expected deviceBlocked")
            return
        }
        #expect(await h.server.sent(to: "/v1/generate").count == 1)
    }

    @Test func aReplayedRequestIsRefusedByTheServer() async throws {
        let h = Harness()
        #expect(await h.client().post("/v1/generate", body: generateBody).isServed())
        let sent = try #require(await h.server.sent(to: "/v1/generate").first)
        let replayed = try await h.server.send(sent)
        #expect(replayed.status == 403)
    }
}

/// The bounded retries: only what spent nothing, at most `maxAttempts`, honouring `Retry-After`.
@Suite struct RetryFlowTests {
    let unavailable = FakeGateServer.Scripted.answer(status: 503, body: #"{"error":"unavailable"}"#)

    @Test func unavailableIsRetriedWithBackoffThenReported() async {
        let h = Harness()
        await h.server.script("/v1/generate", unavailable, unavailable, unavailable)
        guard case .serviceUnavailable(503, nil) = await h.client().post("/v1/generate", body: generateBody) else {
            Issue.record("expected serviceUnavailable")
            return
        }
        #expect(await h.server.sent(to: "/v1/generate").count == 3)
        #expect(h.clock.sleeps == [0.125, 0.25])  // full jitter (0.5 here) under 0.25 · 2^(n-1)
    }

    @Test func retryAfterIsWaitedForAndTheCallThenServed() async {
        let h = Harness()
        let busy = FakeGateServer.Scripted.answer(
            status: 503,
            body: #"{"error":"unavailable"}"#,
            headers: [HTTPHeader("Retry-After", "2")]
        )
        await h.server.script("/v1/generate", busy)
        #expect(await h.client().post("/v1/generate", body: generateBody).isServed())
        #expect(h.clock.sleeps.contains(2))
    }

    @Test func aRequestThatNeverLeftIsSentAgainWithItsUnspentChallenge() async {
        let h = Harness()
        let client = h.client()
        #expect(await client.prepare() == .registered(binding: "bound"))
        await h.server.script("/v1/generate", .notSent)
        #expect(await client.post("/v1/generate", body: generateBody).isServed())
        #expect(await h.server.sent(to: ServerAPI.challengePath).count == 2)  // registration, then the call's one
    }

    @Test func anAnswerLostAfterTheRequestLeftIsNotRepeated() async {
        let h = Harness()
        await h.server.script("/v1/generate", .lostAfterProcessing)
        guard case .networkFailure(let error) = await h.client().post("/v1/generate", body: generateBody) else {
            Issue.record("expected networkFailure")
            return
        }
        #expect(error.stage == .sent)
        #expect(await h.server.sent(to: "/v1/generate").count == 1)
    }

    @Test func quotaAndCeilingAreHoursAwayAndNeverRetried() async {
        let h = Harness()
        await h.server.set(allowance: 1)
        let client = h.client()
        #expect(await client.post("/v1/generate", body: generateBody).isServed())
        guard case .quotaExhausted(3600, 0) = await client.post("/v1/generate", body: generateBody) else {
            Issue.record("expected quotaExhausted")
            return
        }
        await h.server.script(
            "/v1/generate",
            .answer(
                status: 503,
                body: #"{"error":"daily_budget_exhausted"}"#,
                headers: [HTTPHeader("Retry-After", "60")]
            )
        )
        guard case .dailyBudgetExhausted(60) = await client.post("/v1/generate", body: generateBody) else {
            Issue.record("expected dailyBudgetExhausted")
            return
        }
        #expect(await h.server.sent(to: "/v1/generate").count == 3)
        #expect(h.clock.sleeps.isEmpty)
    }

    @Test func argumentsThatCannotBeARouteCallAreRefusedBeforeAnyIO() async {
        let h = Harness()
        let client = h.client()
        for (method, path) in [("post", "/v1/x"), ("POST", "v1/x"), ("POST", "/v1/x?a=1"), ("POST", "/v1/a b")] {
            guard case .invalidRequest(0, "client.invalid_request") = await client.call(method, path) else {
                Issue.record("\(method) \(path) was not refused")
                continue
            }
        }
        #expect(await h.server.requests.isEmpty)
        #expect(await h.enclave.calls.isEmpty)
    }
}

/// Parallel calls on one key, and a streamed answer.
@Suite struct ConcurrencyAndStreamTests {
    @Test func parallelCallsOnOneKeySignOneAssertionAtATime() async {
        let h = Harness()
        let client = h.client()
        #expect(await client.prepare() == .registered(binding: "bound"))
        await h.enclave.set(assertionDelayNanoseconds: 20_000_000)
        let served = await withTaskGroup(of: Bool.self) { group in
            for _ in 0..<6 { group.addTask { await client.post("/v1/generate", body: generateBody).isServed() } }
            var count = 0
            for await ok in group where ok { count += 1 }
            return count
        }
        #expect(served == 6)
        #expect(await h.enclave.maxConcurrentAssertions == 1)
        let challenges = await h.server.sent(to: "/v1/generate").compactMap { $0.header(WireHeader.challenge) }
        #expect(Set(challenges).count == 6)  // each call its own challenge
    }

    @Test func aStreamedAnswerIsAnAsyncSequenceOfEvents() async throws {
        let h = Harness()
        await h.server.set(streamEvents: [#"{"delta":"ATP"}"#, #"{"delta":"is"}"#, "[DONE]"])
        guard case .streamed(let events, let remaining) = await h.client().stream("POST", "/v1/tutor/stream") else {
            Issue.record("expected streamed")
            return
        }
        #expect(remaining == 99)
        var data: [String] = []
        for try await event in events { data.append(event.data) }
        #expect(data == [#"{"delta":"ATP"}"#, #"{"delta":"is"}"#, "[DONE]"])
        let sent = await h.server.sent(to: "/v1/tutor/stream")
        #expect(sent.first?.header("Accept") == "text/event-stream")
    }
}

/// Whatever goes wrong, an install makes at most `maxNewKeysPerDay` App Attest keys a day.
@Suite struct KeyLimitTests {
    @Test func aServerThatRefusesEveryRegistrationCostsAtMostThreeKeysADay() async {
        let h = Harness()
        let rejected = FakeGateServer.Scripted.answer(status: 403, body: #"{"error":"attestation_rejected"}"#)
        for _ in 0..<3 { await h.server.script(ServerAPI.keysPath, rejected) }
        let client = h.client()
        var outcomes: [Outcome] = []
        for _ in 0..<5 { outcomes.append(await client.post("/v1/generate", body: generateBody)) }
        #expect(await h.enclave.generatedKeys == 3)
        guard case .attestationUnavailable(.keyLimit) = outcomes[4] else {
            Issue.record("expected attestationUnavailable(keyLimit), got \(outcomes[4])")
            return
        }
        // The next launch remembers the keys it made.
        _ = await h.client().post("/v1/generate", body: generateBody)
        #expect(await h.enclave.generatedKeys == 3)
        // A day later, one more key may be made (and this time the server takes it).
        h.clock.advance(86_401)
        #expect(await h.client().post("/v1/generate", body: generateBody).isServed())
        #expect(await h.enclave.generatedKeys == 4)
    }

    @Test func aServerThatRefusesEveryProofStopsRenewingKeysAtTheLimitAndKeepsTheLastOne() async {
        let h = Harness()
        await h.server.set(refuseValidProofs: 1_000)
        let client = h.client()
        for _ in 0..<4 {
            guard case .attestationRequired = await client.post("/v1/generate", body: generateBody) else {
                Issue.record("expected attestationRequired")
                return
            }
        }
        #expect(await h.enclave.generatedKeys == 3)
        // The last call could not renew its key: two proved requests, not three.
        #expect(await h.server.sent(to: "/v1/generate").count == 3 + 3 + 2 + 2)
    }
}
