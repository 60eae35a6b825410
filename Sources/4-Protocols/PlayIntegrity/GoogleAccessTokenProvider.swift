package import AttestCore
internal import Crypto
package import FoundationEssentials
package import HTTPClient

/// Obtains and caches the OAuth access token for the Play Integrity API with the service account's key
/// (JWT-bearer grant, `POST GOOGLE_TOKEN_ENDPOINT`).
///
/// - The service-account key is read from its `SecretSource` once and kept; the access token is cached
///   until `refreshMargin` (60 s) before it expires.
/// - A 400, 401 or 403 from the token endpoint means the key was revoked or is wrong: the key and the
///   token are dropped and the secret is not read again for `keyRetryDelay` (60 s), so a rotated key is
///   picked up without hitting Secrets Manager on every request (docs/api.md §7). An
///   unreadable or malformed secret is handled the same way.
/// - 5xx, 429 and transport failures keep the key; the next request tries again.
/// Time is passed in; the actor never reads the clock.
package actor GoogleAccessTokenProvider: AccessTokenSource {
    package struct Configuration: Sendable {
        /// `GOOGLE_TOKEN_ENDPOINT`: where the assertion is exchanged, and the assertion's `aud`.
        package var tokenEndpoint: String
        package var scope: String
        package var refreshMargin: TimeInterval
        package var keyRetryDelay: TimeInterval
        package var timeout: Duration

        package static let playIntegrityScope = "https://www.googleapis.com/auth/playintegrity"
        package static let defaultTokenEndpoint = "https://oauth2.googleapis.com/token"

        package init(
            tokenEndpoint: String = defaultTokenEndpoint,
            scope: String = playIntegrityScope,
            refreshMargin: TimeInterval = 60,
            keyRetryDelay: TimeInterval = 60,
            timeout: Duration = .seconds(5)
        ) {
            self.tokenEndpoint = tokenEndpoint
            self.scope = scope
            self.refreshMargin = refreshMargin
            self.keyRetryDelay = keyRetryDelay
            self.timeout = timeout
        }
    }

    /// An access token and when it expires.
    struct CachedToken: Sendable, Hashable {
        let value: String
        let expiresAt: Date
    }

    private let secret: any SecretSource
    private let transport: any HTTPTransport
    private let configuration: Configuration
    private let logger: Logger
    private var key: ServiceAccountKey?
    private var token: CachedToken?
    private var keyBlockedUntil: Date?

    package init(
        secret: any SecretSource,
        transport: any HTTPTransport,
        configuration: Configuration = Configuration(),
        logger: Logger
    ) {
        self.secret = secret
        self.transport = transport
        self.configuration = configuration
        self.logger = logger
    }

    package func accessToken(now: Date) async throws(GoogleAuthError) -> String {
        if let token, now < token.expiresAt.addingTimeInterval(-configuration.refreshMargin) { return token.value }
        let key = try await loadKey(now: now)
        let assertion = try ServiceAccountAssertion.make(
            key: key,
            scope: configuration.scope,
            audience: configuration.tokenEndpoint,
            now: now
        )
        let fresh = try await exchange(assertion, now: now)
        token = fresh
        return fresh.value
    }

    package func discardAccessToken() { token = nil }

    /// The cached key, or the secret read and parsed now unless a recent failure blocks reading it.
    private func loadKey(now: Date) async throws(GoogleAuthError) -> ServiceAccountKey {
        if let key { return key }
        if let keyBlockedUntil, now < keyBlockedUntil {
            throw GoogleAuthError(.keyBackoff, detail: "secret not re-read before the retry delay")
        }
        do {
            var bytes = try await secret.readSecret()
            defer { Zeroization.wipe(&bytes) }
            let parsed = try ServiceAccountKey(json: bytes)
            key = parsed
            keyBlockedUntil = nil
            return parsed
        } catch let error as SecretSourceError {
            block(now: now, because: error.reason.slug)
            throw GoogleAuthError(.secretUnavailable, detail: error.description)
        } catch let error as GoogleAuthError {
            block(now: now, because: error.reason.slug)
            throw error
        } catch {
            block(now: now, because: "unexpected")
            throw GoogleAuthError(.secretUnavailable, detail: "\(error)")
        }
    }

    private func block(now: Date, because slug: String) {
        key = nil
        token = nil
        keyBlockedUntil = now.addingTimeInterval(configuration.keyRetryDelay)
        logger.warning("google service-account key dropped", ["reason": .string(slug)])
    }

    /// `POST tokenEndpoint` with `grant_type=urn:ietf:params:oauth:grant-type:jwt-bearer&assertion=…`.
    private func exchange(_ assertion: String, now: Date) async throws(GoogleAuthError) -> CachedToken {
        // The assertion is base64url and dots only, so it needs no percent-encoding.
        let form = "grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer&assertion=" + assertion
        let request = HTTPRequest(
            method: "POST",
            url: configuration.tokenEndpoint,
            headers: [
                HTTPHeader("Content-Type", "application/x-www-form-urlencoded"),
                HTTPHeader("Accept", "application/json"),
            ],
            body: Array(form.utf8),
            // Never past the invocation's deadline, at most `configuration.timeout`.
            timeout: Deadline.timeout(atMost: configuration.timeout),
            maxResponseBytes: 64 * 1024
        )
        let response: HTTPResponse
        do {
            response = try await transport.send(request)
        } catch {
            throw GoogleAuthError(.endpointUnavailable, detail: "\(error)")
        }
        switch ProviderAnswer(status: response.status) {
        case .success where response.status == 200:
            return try Self.parseTokenResponse(response.body, now: now)
        case .rejected, .unauthorized:
            // At the token endpoint a 400 too is our key's (a malformed or revoked assertion), never a caller's.
            block(now: now, because: GoogleAuthError.Reason.keyRejected.slug)
            throw GoogleAuthError(.keyRejected, detail: "token endpoint status \(response.status)")
        case .success, .rateLimited, .unavailable, .refused:
            throw GoogleAuthError(.endpointUnavailable, detail: "token endpoint status \(response.status)")
        }
    }

    /// `{"access_token": "...", "expires_in": 3599, "token_type": "Bearer"}`.
    static func parseTokenResponse(_ body: [UInt8], now: Date) throws(GoogleAuthError) -> CachedToken {
        guard let document = try? JSONValue.parse(body),
            let value = document["access_token"]?.stringValue, !value.isEmpty, value.utf8.count <= 4096,
            !value.utf8.contains(where: { $0 < 0x21 || $0 > 0x7e }),
            let expiresIn = document["expires_in"]?.intValue, (1...86_400).contains(expiresIn)
        else { throw GoogleAuthError(.responseMalformed, detail: "missing access_token or expires_in") }
        if let type = document["token_type"]?.stringValue, type.lowercased() != "bearer" {
            throw GoogleAuthError(.responseMalformed, detail: "token_type is not Bearer")
        }
        return CachedToken(value: value, expiresAt: now.addingTimeInterval(TimeInterval(expiresIn)))
    }
}
