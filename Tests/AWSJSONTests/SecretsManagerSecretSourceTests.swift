import AttestCore
import HTTPClient
import SecretsManager
import TestSupport
import Testing

@Suite struct SecretsManagerSecretSourceTests {
    func source(_ transport: ScriptedTransport) -> SecretsManagerSecretSource {
        let client = SecretsManagerClient(
            credentials: Fixture.credentials,
            region: "us-east-1",
            transport: transport,
            clock: FixedClock(Fixture.date),
            random: ConstantRandom()
        )
        return SecretsManagerSecretSource(client: client, secretID: "arn:aws:secretsmanager:us-east-1:1:secret:sa")
    }

    @Test func readsTheSecretStringAsBytes() async throws {
        let transport = ScriptedTransport([.respond(Fixture.ok(#"{"SecretString":"{\"type\":\"service_account\"}"}"#))])
        #expect(try await source(transport).readSecret() == Array(#"{"type":"service_account"}"#.utf8))
        #expect(
            transport.requests.first?.body
                == Array(#"{"SecretId":"arn:aws:secretsmanager:us-east-1:1:secret:sa"}"#.utf8)
        )
    }

    /// A secret read during an invocation (the Google key, loaded on the first Play call) ends within it.
    @Test func aReadEndsWithinTheCurrentDeadline() async throws {
        let ok = Fixture.ok(#"{"SecretString":"k"}"#)
        let transport = ScriptedTransport([.respond(ok), .respond(ok)])
        _ = try await Deadline.$current.withValue(.after(.milliseconds(400))) {
            try await source(transport).readSecret()
        }
        let bounded = try #require(transport.requests.first?.timeout)
        #expect(bounded <= .milliseconds(400))
        // Outside an invocation (cold start), the source's own 5 s (one attempt is capped lower).
        _ = try await source(transport).readSecret()
        let own = try #require(transport.requests.last?.timeout)
        #expect(own > .seconds(1))
    }

    @Test func anUnknownSecretIsNotFound() async {
        let body = #"{"__type":"ResourceNotFoundException","Message":"not found"}"#
        let transport = ScriptedTransport([.respond(HTTPResponse(status: 400, body: Array(body.utf8)))])
        await #expect(throws: SecretSourceError(.notFound)) { try await source(transport).readSecret() }
    }

    @Test func accessDeniedIsUnavailable() async {
        let body = #"{"__type":"AccessDeniedException","Message":"no"}"#
        let transport = ScriptedTransport([.respond(HTTPResponse(status: 400, body: Array(body.utf8)))])
        await #expect(throws: SecretSourceError(.unavailable)) { try await source(transport).readSecret() }
    }
}
