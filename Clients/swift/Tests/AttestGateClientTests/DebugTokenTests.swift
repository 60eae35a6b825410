#if DEBUG
@testable import AttestGateClient
import Testing

/// Debug tokens, client side (debug builds only; `check.sh` proves release builds carry none of this).
@Suite struct DebugTokenTests {
    let token = "agdt_" + String(repeating: "A", count: 42) + "w"

    @Test func theTokenComesFromTheLaunchArgumentElseTheEnvironmentAndMustBeWellFormed() {
        #expect(DebugToken.from(environment: [:], arguments: ["App", "-AttestGateDebugToken", token]) == token)
        #expect(DebugToken.from(environment: ["ATTESTGATE_DEBUG_TOKEN": token], arguments: ["App"]) == token)
        let other = "agdt_" + String(repeating: "b", count: 43)
        #expect(
            DebugToken.from(
                environment: ["ATTESTGATE_DEBUG_TOKEN": other],
                arguments: ["-AttestGateDebugToken", token]
            )
                == token
        )
        for bad in [
            "agdt_short", "agdx_" + String(repeating: "A", count: 43), token + "=",
            "agdt_" + String(repeating: "+", count: 43),
        ] {
            #expect(DebugToken.from(environment: ["ATTESTGATE_DEBUG_TOKEN": bad], arguments: []) == nil)
        }
        #expect(DebugToken.from(environment: [:], arguments: ["-AttestGateDebugToken"]) == nil)
    }

    @Test func aDebugCallSendsTheDeviceIDAndTheTokenAndNothingOfAppAttest() async {
        let h = Harness()
        await h.server.allowDebugToken(token)
        var configuration = Configuration(baseURL: "https://gate.test")
        configuration.debugToken = token
        let client = AttestGate(
            configuration: configuration,
            deviceID: h.deviceID,
            platform: Platform(appAttest: h.enclave, store: h.store, transport: h.server, clock: h.clock)
        )
        #expect(await client.post("/v1/generate", body: generateBody).isServed())
        let sent = await h.server.requests
        #expect(sent.count == 1)  // no challenge, no registration
        let names = sent[0].headers.map { $0.name.lowercased() }.sorted()
        #expect(names == ["content-type", "x-debug-token", "x-device-id"])
        #expect(await h.enclave.calls.isEmpty)
    }

    @Test func aRefusedDebugTokenIsNotRecoveredWithAppAttest() async {
        let h = Harness()
        var configuration = Configuration(baseURL: "https://gate.test")
        configuration.debugToken = token  // revoked, or the server runs without DEBUG_TOKENS
        let client = AttestGate(
            configuration: configuration,
            deviceID: h.deviceID,
            platform: Platform(appAttest: h.enclave, store: h.store, transport: h.server, clock: h.clock)
        )
        guard case .attestationRequired = await client.post("/v1/generate", body: generateBody) else {
            Issue.record("expected attestationRequired")
            return
        }
        #expect(await h.server.requests.count == 1)
        #expect(await h.enclave.calls.isEmpty)
    }
}
#endif
