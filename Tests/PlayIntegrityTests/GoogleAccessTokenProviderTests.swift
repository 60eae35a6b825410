import AttestCore
import Crypto
import CryptoTestSupport
import FoundationEssentials
import HTTPClient
import Synchronization
import TestSupport
import Testing

@testable import PlayIntegrity

/// A service account made for the test (never a real credential).
struct TestServiceAccount: Sendable {
    let key: RSAPrivateKey
    let json: [UInt8]
    static let email = "pi-decoder@test-project.iam.gserviceaccount.com"
    static let keyID = "0123456789abcdef0123456789abcdef01234567"

    /// - Parameter generated: the key; a fresh one when nil (a stranger's account).
    init(generated: GeneratedRSAKey? = nil) throws {
        let generated = try generated ?? GeneratedRSAKey()
        key = generated.key
        json =
            JSONValue.object([
                "type": .string("service_account"),
                "project_id": .string("test-project"),
                "private_key_id": .string(Self.keyID),
                "private_key": .string(generated.pkcs8PEM),
                "client_email": .string(Self.email),
                "token_uri": .string("https://oauth2.googleapis.com/token"),
            ]).serializedBytes
    }

    static let shared: TestServiceAccount = try! TestServiceAccount(generated: GeneratedRSAKey.shared())
}

@Suite struct GoogleAccessTokenProviderTests {
    static let endpoint = "http://127.0.0.1:9/token"
    static let t0 = Date(timeIntervalSince1970: 1_764_500_000)

    /// A token endpoint whose status can be changed; it issues `token-N` valid for `expiresIn` seconds.
    final class TokenEndpoint: Sendable {
        let status = Mutex(200)
        let issued = Mutex(0)
        let expiresIn: Int
        init(expiresIn: Int = 3599) { self.expiresIn = expiresIn }

        func respond(_ request: HTTPRequest) -> HTTPResponse {
            let status = self.status.withLock { $0 }
            guard status == 200 else {
                return HTTPResponse(
                    status: status,
                    body: Array(#"{"error":"invalid_grant","error_description":"Invalid JWT Signature."}"#.utf8)
                )
            }
            let n = issued.withLock {
                $0 += 1
                return $0
            }
            return HTTPResponse(
                status: 200,
                body: Array(#"{"access_token":"token-\#(n)","expires_in":\#(expiresIn),"token_type":"Bearer"}"#.utf8)
            )
        }
    }

    struct Rig {
        let endpoint: TokenEndpoint
        let secret: CountingSecretSource
        let transport: ClosureTransport
        let provider: GoogleAccessTokenProvider

        init(endpoint: TokenEndpoint = TokenEndpoint(), secret: [UInt8]? = TestServiceAccount.shared.json) {
            self.endpoint = endpoint
            self.secret = CountingSecretSource(secret)
            self.transport = ClosureTransport { endpoint.respond($0) }
            self.provider = GoogleAccessTokenProvider(
                secret: self.secret,
                transport: transport,
                configuration: .init(tokenEndpoint: GoogleAccessTokenProviderTests.endpoint),
                logger: Logger(sink: CapturingLogSink())
            )
        }

        func token(at seconds: TimeInterval) async throws(GoogleAuthError) -> String {
            try await provider.accessToken(now: GoogleAccessTokenProviderTests.t0.addingTimeInterval(seconds))
        }
    }

    @Test func theAssertionIsASignedJWTBearerGrantWithTheRightClaims() async throws {
        let rig = Rig()
        #expect(try await rig.token(at: 0) == "token-1")
        let request = try #require(rig.transport.sent.first)
        #expect(request.method == "POST" && request.url == Self.endpoint)
        #expect(request.headers.contains(HTTPHeader("Content-Type", "application/x-www-form-urlencoded")))
        let form = String(decoding: request.body, as: UTF8.self)
        let prefix = "grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer&assertion="
        #expect(form.hasPrefix(prefix))
        let parts = form.dropFirst(prefix.count).split(separator: ".", omittingEmptySubsequences: false)
        try #require(parts.count == 3)
        let header = try JSONValue.parse(try #require(Bytes.fromBase64URL(parts[0])))
        let claims = try JSONValue.parse(try #require(Bytes.fromBase64URL(parts[1])))
        #expect(
            header
                == .object(["alg": .string("RS256"), "typ": .string("JWT"), "kid": .string(TestServiceAccount.keyID)])
        )
        #expect(claims["iss"] == .string(TestServiceAccount.email))
        #expect(claims["scope"] == .string("https://www.googleapis.com/auth/playintegrity"))
        #expect(claims["aud"] == .string(Self.endpoint))
        #expect(claims["iat"] == .int(1_764_500_000))
        #expect(claims["exp"] == .int(1_764_500_000 + 3600))
        let signature = try #require(Bytes.fromBase64URL(parts[2]))
        let signingInput = Array("\(parts[0]).\(parts[1])".utf8)
        #expect(TestServiceAccount.shared.key.isValidRS256Signature(signature, for: signingInput))
    }

    @Test func theTokenRequestEndsWithinTheInvocationsDeadline() async throws {
        // The 5 s cap is cut to what the invocation has left, or Google could outlive it (docs/playintegrity.md).
        let rig = Rig(endpoint: TokenEndpoint(expiresIn: 120))
        _ = try await Deadline.$current.withValue(.after(.milliseconds(600))) { try await rig.token(at: 0) }
        let bounded = try #require(rig.transport.sent.last?.timeout)
        #expect(bounded <= .milliseconds(600) && bounded > .zero)
        _ = try await rig.token(at: 3600)
        #expect(rig.transport.sent.count == 2 && rig.transport.sent.last?.timeout == .seconds(5))
    }

    @Test func theAccessTokenIsCachedUntilSixtySecondsBeforeExpiry() async throws {
        let rig = Rig(endpoint: TokenEndpoint(expiresIn: 3600))
        #expect(try await rig.token(at: 0) == "token-1")
        #expect(try await rig.token(at: 3539) == "token-1")
        #expect(rig.transport.sent.count == 1)
        #expect(try await rig.token(at: 3540) == "token-2")
        #expect(rig.transport.sent.count == 2)
        #expect(rig.secret.reads == 1)
    }

    @Test(arguments: [400, 401, 403])
    func aRefusedKeyIsDroppedAndTheSecretIsNotReReadForSixtySeconds(_ status: Int) async throws {
        let rig = Rig()
        rig.endpoint.status.withLock { $0 = status }
        await #expect(throws: GoogleAuthError(.keyRejected)) { try await rig.token(at: 0) }
        #expect(rig.secret.reads == 1)
        // Within the minute: no secret read, no token request.
        await #expect(throws: GoogleAuthError(.keyBackoff)) { try await rig.token(at: 30) }
        await #expect(throws: GoogleAuthError(.keyBackoff)) { try await rig.token(at: 59.9) }
        #expect(rig.secret.reads == 1)
        #expect(rig.transport.sent.count == 1)
        // After it, the (rotated) secret is read again and used.
        rig.endpoint.status.withLock { $0 = 200 }
        #expect(try await rig.token(at: 60) == "token-1")
        #expect(rig.secret.reads == 2)
    }

    @Test func aRevokedKeyAlsoDropsTheCachedAccessToken() async throws {
        let rig = Rig(endpoint: TokenEndpoint(expiresIn: 3600))
        #expect(try await rig.token(at: 0) == "token-1")
        rig.endpoint.status.withLock { $0 = 401 }
        await #expect(throws: GoogleAuthError(.keyRejected)) { try await rig.token(at: 3550) }
        await #expect(throws: GoogleAuthError(.keyBackoff)) { try await rig.token(at: 3551) }
        #expect(rig.secret.reads == 1)
    }

    @Test(arguments: [500, 503, 429])
    func endpointFailuresKeepTheKey(_ status: Int) async throws {
        let rig = Rig()
        rig.endpoint.status.withLock { $0 = status }
        await #expect(throws: GoogleAuthError(.endpointUnavailable)) { try await rig.token(at: 0) }
        rig.endpoint.status.withLock { $0 = 200 }
        #expect(try await rig.token(at: 1) == "token-1")
        #expect(rig.secret.reads == 1)
    }

    @Test func transportFailureKeepsTheKey() async throws {
        let secret = CountingSecretSource(TestServiceAccount.shared.json)
        let provider = GoogleAccessTokenProvider(
            secret: secret,
            transport: ClosureTransport { _ in throw HTTPError(.timeout) },
            configuration: .init(tokenEndpoint: Self.endpoint),
            logger: Logger(sink: CapturingLogSink())
        )
        await #expect(throws: GoogleAuthError(.endpointUnavailable)) { try await provider.accessToken(now: Self.t0) }
        await #expect(throws: GoogleAuthError(.endpointUnavailable)) { try await provider.accessToken(now: Self.t0) }
        #expect(secret.reads == 1)
    }

    @Test func anUnreadableSecretBacksOffTooAndIsRetriedAfterAMinute() async throws {
        let rig = Rig(secret: nil)
        await #expect(throws: GoogleAuthError(.secretUnavailable)) { try await rig.token(at: 0) }
        await #expect(throws: GoogleAuthError(.keyBackoff)) { try await rig.token(at: 10) }
        #expect(rig.secret.reads == 1)
        rig.secret.replace(with: TestServiceAccount.shared.json)
        #expect(try await rig.token(at: 61) == "token-1")
    }

    @Test(arguments: [
        #"{"client_email":"a@b","private_key_id":"k"}"#,
        #"{"client_email":"a@b","private_key":"-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n","private_key_id":"k"}"#,
        #"{"type":"authorized_user"}"#,
        "not json",
    ])
    func aMalformedSecretIsRefused(_ json: String) async {
        let rig = Rig(secret: Array(json.utf8))
        await #expect(throws: GoogleAuthError(.secretMalformed)) { try await rig.token(at: 0) }
        #expect(rig.transport.sent.isEmpty)
    }

    @Test(arguments: [
        #"{"expires_in":3599,"token_type":"Bearer"}"#,
        #"{"access_token":"x","token_type":"Bearer"}"#,
        #"{"access_token":"x","expires_in":0}"#,
        #"{"access_token":"x y","expires_in":10}"#,
        #"{"access_token":"x","expires_in":10,"token_type":"MAC"}"#,
        "<html>",
    ])
    func aMalformedTokenResponseIsAnError(_ body: String) async {
        let secret = CountingSecretSource(TestServiceAccount.shared.json)
        let provider = GoogleAccessTokenProvider(
            secret: secret,
            transport: ClosureTransport { _ in HTTPResponse(status: 200, body: Array(body.utf8)) },
            configuration: .init(tokenEndpoint: Self.endpoint),
            logger: Logger(sink: CapturingLogSink())
        )
        await #expect(throws: GoogleAuthError(.responseMalformed)) { try await provider.accessToken(now: Self.t0) }
    }

    @Test func discardForgetsOnlyTheAccessToken() async throws {
        let rig = Rig()
        #expect(try await rig.token(at: 0) == "token-1")
        await rig.provider.discardAccessToken()
        #expect(try await rig.token(at: 1) == "token-2")
        #expect(rig.secret.reads == 1)
    }

    @Test func theSecretFileSourceReadsAFile() async throws {
        let source = FileSecretSource(path: Fixture.directory + "oauth_token_response_200.json")
        #expect(try await source.readSecret() == (try Fixture.bytes("oauth_token_response_200.json")))
        await #expect(throws: SecretSourceError(.notFound)) {
            try await FileSecretSource(path: Fixture.directory + "missing.json").readSecret()
        }
        await #expect(throws: SecretSourceError(.tooLarge)) {
            try await FileSecretSource(path: Fixture.directory + "SOURCES.md", maxBytes: 100).readSecret()
        }
    }
}
