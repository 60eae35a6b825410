import Foundation
import Testing

@testable import AttestGateClient

/// The key's lifecycle through the client against `FakeGateServer`: generate once, attest once, register,
/// keep the key id, retry `serverUnavailable` with the same key and hash, reset on `invalidKey`.
@Suite struct RegistrationFlowTests {
    @Test func theFirstCallRegistersAKeyWithADeviceCheckTokenThenProvesEachCallAndReusesNextChallenges() async throws {
        let h = Harness()
        let client = h.client()
        let first = await client.post("/v1/generate", body: generateBody)
        let second = await client.post("/v1/generate", body: generateBody)
        #expect(first.isServed() && second.isServed())
        #expect(first.quotaRemaining == 99 && second.quotaRemaining == 98)

        let registrations = await h.server.registrations
        #expect(registrations.count == 1 && registrations.first?.binding == "bound")
        #expect(registrations.first?.deviceCheckToken == Bytes.base64(Array("devicecheck-token-1".utf8)))
        // One challenge for the registration, one for the first call; the second used the first's next one.
        #expect(await h.server.sent(to: ServerAPI.challengePath).count == 2)
        let calls = await h.server.sent(to: "/v1/generate")
        #expect(calls[0].header(WireHeader.challenge) != calls[1].header(WireHeader.challenge))
        #expect(calls.allSatisfy { $0.header(WireHeader.deviceID) == h.deviceID })
        #expect(await h.enclave.generatedKeys == 1)
        #expect(await h.enclave.operations("attestKey").count == 1)
        #expect(h.events.events.contains(.keyRegistered(binding: "bound")))
    }

    @Test func theKeyIDIsKeptAcrossLaunchesSoTheNextLaunchNeitherGeneratesNorRegisters() async {
        let h = Harness()
        #expect(await h.client().prepare() == .registered(binding: "bound"))
        let nextLaunch = h.client()
        #expect(await nextLaunch.prepare() == .alreadyRegistered)
        #expect(await nextLaunch.post("/v1/generate", body: generateBody).isServed())
        #expect(await h.enclave.generatedKeys == 1)
        #expect(await h.server.registrations.count == 1)
    }

    @Test func serverUnavailableIsRetriedWithTheSameKeyAndTheSameClientDataHash() async {
        let h = Harness()
        await h.enclave.set(attestUnavailable: 2)
        #expect(await h.client().prepare() == .registered(binding: "bound"))
        let attests = await h.enclave.operations("attestKey")
        #expect(attests.count == 3)
        #expect(Set(attests.map(\.keyID)).count == 1 && Set(attests.map(\.clientDataHash)).count == 1)
        #expect(h.clock.sleeps.count == 2)
    }

    @Test func serverUnavailableBeyondTheRetriesLeavesTheCallWithoutProofAndTheNextCallRetriesTheSameHash() async {
        let h = Harness()
        await h.enclave.set(attestUnavailable: 3)
        let client = h.client()
        guard case .attestationUnavailable(let missing) = await client.post("/v1/generate", body: generateBody) else {
            Issue.record("expected attestationUnavailable")
            return
        }
        #expect(missing == MissingEvidence(.serverUnavailable))
        #expect(await h.server.sent(to: "/v1/generate").last?.header(WireHeader.appAttestKeyID) == nil)
        // The next launch: Apple answers, with the same key and the same hash as before.
        #expect(await h.client().post("/v1/generate", body: generateBody).isServed())
        let attests = await h.enclave.operations("attestKey")
        #expect(attests.count == 4 && Set(attests.map(\.clientDataHash)).count == 1)
        #expect(await h.enclave.generatedKeys == 1)
    }

    @Test func aReinstallKeepsTheDeviceIDAndRebindsANewKeyWhenTheOldOneIsInvalid() async {
        let h = Harness()
        #expect(await h.client().post("/v1/generate", body: generateBody).isServed())
        await h.enclave.reinstall()  // App Attest keys do not survive it; the Keychain does
        let reinstalled = h.client()
        #expect(await reinstalled.post("/v1/generate", body: generateBody).isServed())
        #expect(await h.server.registrations.map(\.binding) == ["bound", "rebound"])
        #expect(await h.enclave.generatedKeys == 2)
        #expect(h.events.events.contains(.keyReset(reason: "appattest.invalid_key")))
    }

    @Test func aKeyAppleRejectsIsResetAndReRegisteredOnceThenTheCallGoesWithoutProof() async {
        let h = Harness()
        let client = h.client()
        #expect(await client.prepare() == .registered(binding: "bound"))
        let first = await h.server.keyOf[h.deviceID]
        await h.enclave.reject(first ?? "")
        #expect(await client.post("/v1/generate", body: generateBody).isServed())
        #expect(await h.server.keyOf[h.deviceID] != first)
        #expect(await h.server.registrations.map(\.binding) == ["bound", "rebound"])

        // Apple rejects every key: one reset in the call, then the call goes without proof. Never a loop.
        await h.enclave.set(rejectAll: true)
        let before = await h.enclave.generatedKeys
        guard case .attestationUnavailable(let missing) = await client.post("/v1/generate", body: generateBody) else {
            Issue.record("expected attestationUnavailable")
            return
        }
        #expect(missing == MissingEvidence(.invalidKey))
        #expect(await h.enclave.generatedKeys == before + 1)
    }

    @Test func aStoredRegistrationWhoseAnswerWasLostIsResentAndARefusedResendMeansItArrived() async {
        let h = Harness()
        await h.server.script(ServerAPI.keysPath, .lostAfterProcessing)
        let client = h.client()
        #expect(await client.post("/v1/generate", body: generateBody).isServed())
        let sent = await h.server.sent(to: ServerAPI.keysPath)
        #expect(sent.count == 2 && attestationFields(sent[0]) == attestationFields(sent[1]))  // the same attestation
        #expect(await h.server.registrations.count == 1)
        #expect(await h.enclave.generatedKeys == 1)  // the key the server bound is the one used
    }

    @Test func aRegistrationAnswered503IsResentWithTheSameBody() async {
        let h = Harness()
        await h.server.script(ServerAPI.keysPath, .answer(status: 503, body: #"{"error":"unavailable"}"#))
        #expect(await h.client().prepare() == .registered(binding: "bound"))
        let sent = await h.server.sent(to: ServerAPI.keysPath)
        #expect(sent.count == 2 && attestationFields(sent[0]) == attestationFields(sent[1]))
    }

    /// A registration body's key id, attestation and challenge (the DeviceCheck token is made fresh each time).
    private func attestationFields(_ request: TransportRequest) -> [String] {
        let fields = (try? JSONDecoder().decode([String: String].self, from: Data(request.body))) ?? [:]
        return ["keyId", "attestation", "challenge"].map { fields[$0] ?? "" }
    }

    @Test func aRefusedAttestationGetsOneNewKeyPerCall() async {
        let h = Harness()
        let rejected = #"{"error":"attestation_rejected"}"#
        await h.server.script(ServerAPI.keysPath, .answer(status: 403, body: rejected))
        let client = h.client()
        #expect(await client.prepare() == .failed(.rejected))  // the key this run made: no second one
        #expect(await client.prepare() == .registered(binding: "bound"))  // the next run: a new key
        #expect(await h.enclave.generatedKeys == 2)
    }

    @Test func withoutAppAttestTheCallGoesWithoutProofAndNeverAsksForAKey() async {
        let h = Harness()
        await h.enclave.set(supported: false, deviceCheck: false)
        let client = h.client()
        #expect(await client.prepare() == .unavailable(.featureUnsupported))
        guard case .attestationUnavailable(let missing) = await client.post("/v1/generate", body: generateBody) else {
            Issue.record("expected attestationUnavailable on an enforce route")
            return
        }
        #expect(missing == MissingEvidence(.featureUnsupported))
        let sent = await h.server.sent(to: "/v1/generate")
        #expect(sent.count == 1)  // no recovery, no loop: nothing this install can do
        #expect(sent[0].headers.map { $0.name.lowercased() }.sorted() == ["content-type", "x-device-id"])
        #expect(await h.server.sent(to: ServerAPI.challengePath).isEmpty)
        #expect(await h.enclave.calls.isEmpty)
        await h.server.set(mode: "monitor")
        #expect(await client.post("/v1/generate", body: generateBody).isServed())  // the server's policy decides
    }

    @Test func withoutAppAttestButWithDeviceCheckTheCallCarriesTheFallback() async {
        let h = Harness()
        await h.enclave.set(supported: false, deviceCheck: true)
        _ = await h.client().post("/v1/generate", body: generateBody)
        let call = await h.server.sent(to: "/v1/generate")[0]
        #expect(call.header(WireHeader.deviceCheckToken) != nil && call.header(WireHeader.challenge) != nil)
        #expect(call.header(WireHeader.appAttestAssertion) == nil && call.header(WireHeader.clientData) == nil)
    }
}
