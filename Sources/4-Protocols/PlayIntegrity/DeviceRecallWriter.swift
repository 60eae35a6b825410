package import AttestCore
package import FoundationEssentials
package import HTTPClient

/// Writes device recall bits (Google's `deviceRecall.write`, docs/playintegrity.md "Device recall").
/// `GoogleDeviceRecallWriter` is the real one; tests inject fakes.
package protocol DeviceRecallWriting: Sendable {
    /// Sets `bitFirst` for the physical device that made `integrityToken`, leaving the other two bits as
    /// they are (they belong to whatever else the developer account uses them for).
    /// - Throws: `DeviceRecallError` when Google did not confirm the write.
    func setFirstBit(integrityToken: String, now: Date) async throws(DeviceRecallError)
}

/// Why a device recall write was not confirmed: the reason slug for logs. Every case leaves the device
/// ID's tier `unknown` (docs/gate.md "Device tiers").
package struct DeviceRecallError: Error, Hashable, CustomStringConvertible {
    package struct Reason: Hashable, Sendable, CustomStringConvertible {
        package let slug: String
        private init(_ slug: String) { self.slug = slug }
        package var description: String { slug }

        /// No Google access token (the same source as the decode's).
        package static let credentialsUnavailable = Reason("play.recall.credentials_unavailable")
        /// 400: Google refused the request (a token it does not accept for a write, e.g. older than 14 days).
        package static let rejected = Reason("play.recall.rejected")
        /// 401 or 403: our access token, the project link, or an app not admitted to the early access.
        package static let unauthorized = Reason("play.recall.unauthorized")
        /// 429: Google's quota.
        package static let rateLimited = Reason("play.recall.rate_limited")
        /// 5xx.
        package static let serverError = Reason("play.recall.server_error")
        /// No answer: connection or timeout with time left.
        package static let transport = Reason("play.recall.transport")
        /// Too little of the invocation's time left to make the call, or it ran out during the call.
        package static let deadlineExceeded = Reason("play.recall.deadline")
        /// Any other status.
        package static let refused = Reason("play.recall.refused")
    }

    package let reason: Reason
    package let detail: String

    package init(_ reason: Reason, detail: String = "") {
        self.reason = reason
        self.detail = detail
    }

    package static func == (lhs: DeviceRecallError, rhs: DeviceRecallError) -> Bool { lhs.reason == rhs.reason }
    package func hash(into hasher: inout Hasher) { hasher.combine(reason) }
    package var description: String { detail.isEmpty ? reason.slug : "\(reason.slug): \(detail)" }
}

/// `POST {PLAY_INTEGRITY_ENDPOINT}/v1/{package}/deviceRecall:write` with the decode's access token:
/// `{"integrityToken": …, "newValues": {"bitFirst": true}}`, answered `200 {}`.
///
/// `bitSecond` and `bitThird` are left out of `newValues`, which leaves them as they are (Google's own
/// client sample sends only the bits it changes): the three bits are shared by every app of the developer
/// account. The call is bounded by `decodeTimeout` and by the invocation's deadline (`Deadline.timeout`).
package struct GoogleDeviceRecallWriter: DeviceRecallWriting {
    private let configuration: PlayIntegrityConfiguration
    private let accessTokens: any AccessTokenSource
    private let transport: any HTTPTransport
    private let logger: Logger

    package init(
        configuration: PlayIntegrityConfiguration,
        accessTokens: any AccessTokenSource,
        transport: any HTTPTransport,
        logger: Logger
    ) {
        self.configuration = configuration
        self.accessTokens = accessTokens
        self.transport = transport
        self.logger = logger
    }

    /// The write's URL for `configuration`.
    static func url(_ configuration: PlayIntegrityConfiguration) -> String {
        var base = configuration.endpoint
        while base.hasSuffix("/") { base.removeLast() }
        return "\(base)/v1/\(configuration.packageName)/deviceRecall:write"
    }

    package func setFirstBit(integrityToken: String, now: Date) async throws(DeviceRecallError) {
        let accessToken: String
        do {
            accessToken = try await accessTokens.accessToken(now: now)
        } catch {
            throw DeviceRecallError(.credentialsUnavailable, detail: error.reason.slug)
        }
        // After our access token is ready: the time left is what Google gets.
        guard let timeout = ProviderAttempt.timeout(atMost: configuration.decodeTimeout) else {
            throw DeviceRecallError(.deadlineExceeded)
        }
        let body = JSONValue.object([
            "integrityToken": .string(integrityToken),
            "newValues": .object(["bitFirst": .bool(true)]),
        ])
        let request = HTTPRequest(
            method: "POST",
            url: Self.url(configuration),
            headers: [
                HTTPHeader("Authorization", "Bearer \(accessToken)"),
                HTTPHeader("Content-Type", "application/json"),
                HTTPHeader("Accept", "application/json"),
            ],
            body: body.serializedBytes,
            timeout: timeout,
            // The answer is `{}`; anything long is not Google's answer to this call.
            maxResponseBytes: 16 * 1024
        )
        let response: HTTPResponse
        do {
            response = try await transport.send(request)
        } catch {
            // The timeout is capped by the deadline, so libcurl can call the deadline its own timeout a moment early.
            throw DeviceRecallError(ProviderAttempt.ranOutOfTime() ? .deadlineExceeded : .transport)
        }
        switch ProviderAnswer(status: response.status) {
        case .success:
            return
        case .rejected:
            throw DeviceRecallError(.rejected)
        case .unauthorized:
            // Our access token may be stale (or the app is not in the early access): a fresh one next time.
            await accessTokens.discardAccessToken()
            logger.warning("play device recall write unauthorized", ["status": .int(Int64(response.status))])
            throw DeviceRecallError(.unauthorized)
        case .rateLimited:
            throw DeviceRecallError(.rateLimited)
        case .unavailable:
            throw DeviceRecallError(response.status == 408 ? .transport : .serverError)
        case .refused:
            throw DeviceRecallError(.refused, detail: "status \(response.status)")
        }
    }
}
