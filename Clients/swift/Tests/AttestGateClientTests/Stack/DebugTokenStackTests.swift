#if DEBUG
@testable import AttestGateClient
import Foundation
import Testing

/// Debug tokens through the real server (`DEBUG_TOKENS=on`): a token made with the operator CLI proves calls
/// on an enforce route with `X-Device-ID` and `X-Debug-Token` alone; revoked, it is refused on the next call.
@Suite(.enabled(if: LocalStack.isAvailable && LocalStack.debugTokens, "needs the local stack with --debug-tokens"))
struct DebugTokenStackTests {
    @Test func aTokenServesAnEnforceRouteWithoutAppAttestUntilItIsRevoked() async throws {
        let name = "swift-client-\(UInt32.random(in: 0...UInt32.max))"
        let made = try LocalStack.operatorCLI(["debug-token", "create", "--name", name, "--expires", "1d"])
        #expect(made.status == 0, "\(made.output)")
        let fields = try JSONSerialization.jsonObject(with: Data(made.output.utf8)) as? [String: Any]
        let token = try #require(fields?["token"] as? String)
        #expect(DebugToken.isWellFormed(token))

        let install = try StackInstall()
        try await install.enclave.setSupported(false)  // a simulator
        let client = install.client(debugToken: token)
        let served = await client.post("/v1/tutor/deck-biology/card-7", body: Array(#"{"question":"Why?"}"#.utf8))
        #expect(served.isServed(), "\(served)")
        let sent = try #require(install.transport.sent(to: "/v1/tutor/deck-biology/card-7").first?.request)
        #expect(sent.headers.map { $0.name.lowercased() }.sorted() == ["content-type", "x-debug-token", "x-device-id"])
        #expect(install.transport.sent(to: ServerAPI.challengePath).isEmpty)

        #expect(try LocalStack.operatorCLI(["debug-token", "revoke", "--name", name]).status == 0)
        guard case .attestationRequired = await client.post("/v1/tutor/deck-biology/card-7", body: Array("{}".utf8))
        else {
            Issue.record("a revoked token was not refused")
            return
        }
    }
}
#endif
