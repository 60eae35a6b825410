package import AttestCore
package import FoundationEssentials
package import HTTPClient

/// Verifies a Play Integrity standard-request token, in the order of docs/api.md §3 (docs/playintegrity.md):
///
/// 0. (the gate, before calling this) the challenge is spent;
/// 1. a token longer than 16,384 characters (or empty, or not token characters) → `rejected`, no cost;
/// 2. our access token → on failure `unavailable`, and the device's budget is untouched;
/// 3. one unit of the device ID's daily decode budget → exhausted `rejected`, store error `unavailable`;
/// 4. the global daily soft cap → reached or store error `unavailable`;
/// 5. `POST {endpoint}/v1/{package}:decodeIntegrityToken` → 400 `rejected`; 401/403/429/5xx/timeout
///    `unavailable`;
/// 6. the verdict policies (`VerdictPolicies.standard`): any missing field is `rejected`.
///
/// `unavailable` is reachable only from our own infrastructure and Google's, never from token content.
package struct PlayIntegrityVerifier: Sendable {
    private let configuration: PlayIntegrityConfiguration
    private let accessTokens: any AccessTokenSource
    private let transport: any HTTPTransport
    private let budget: any DeviceDailyBudget
    private let quota: any DecodeQuotaGuard
    private let logger: Logger

    package init(
        configuration: PlayIntegrityConfiguration,
        accessTokens: any AccessTokenSource,
        transport: any HTTPTransport,
        budget: any DeviceDailyBudget,
        quota: any DecodeQuotaGuard,
        logger: Logger
    ) {
        self.configuration = configuration
        self.accessTokens = accessTokens
        self.transport = transport
        self.budget = budget
        self.quota = quota
        self.logger = logger
    }

    /// Checks `token` for `deviceID`.
    /// - Parameters:
    ///   - token: `X-Play-Integrity-Token`.
    ///   - deviceID: `X-Device-ID` (validated by the gate); the decode budget is kept per device ID.
    ///   - expectedRequestHash: the route's binding mode's `requestHash` (WireContract: `ClientData.playRequestHash`
    ///     or `ChallengeBinding.playRequestHash`).
    ///   - deviceIntegrity: the route's required label; nil uses the configuration's.
    ///   - maxDeviceActivity: the route's highest accepted `recentDeviceActivity` level.
    ///   - now: the time of the request.
    package func verify(
        token: String,
        deviceID: String,
        expectedRequestHash: String,
        deviceIntegrity: DeviceIntegrityLevel? = nil,
        maxDeviceActivity: DeviceActivityLevel = .routeDefault,
        now: Date
    ) async -> PlayIntegrityResult {
        await check(
            token: token,
            deviceID: deviceID,
            expectedRequestHash: expectedRequestHash,
            deviceIntegrity: deviceIntegrity,
            maxDeviceActivity: maxDeviceActivity,
            now: now
        ).result
    }

    /// `verify`, and what a genuine verdict says beyond the answer (its device recall bits), for the
    /// device tier (docs/playintegrity.md "Device recall"). The parameters are `verify`'s.
    package func check(
        token: String,
        deviceID: String,
        expectedRequestHash: String,
        deviceIntegrity: DeviceIntegrityLevel? = nil,
        maxDeviceActivity: DeviceActivityLevel = .routeDefault,
        now: Date
    ) async -> PlayCheck {
        PlayCheck(
            await decideAndRead(
                token: token,
                deviceID: deviceID,
                expectedRequestHash: expectedRequestHash,
                deviceIntegrity: deviceIntegrity,
                maxDeviceActivity: maxDeviceActivity,
                now: now
            )
        )
    }

    /// Steps 1 to 6; the payload only with a `genuine` answer.
    private func decideAndRead(
        token: String,
        deviceID: String,
        expectedRequestHash: String,
        deviceIntegrity: DeviceIntegrityLevel?,
        maxDeviceActivity: DeviceActivityLevel,
        now: Date
    ) async -> (PlayIntegrityResult, IntegrityPayload?) {
        if let refused = Self.precheck(token) { return (.rejected(refused), nil) }

        let accessToken: String
        do {
            accessToken = try await accessTokens.accessToken(now: now)
        } catch {
            logger.warning("play integrity credentials unavailable", ["reason": .string(error.reason.slug)])
            return (.unavailable(.credentialsUnavailable), nil)
        }

        // A decode that could not be answered in time is not paid for: the time is checked before the
        // device's budget and the project's quota are spent, and again after.
        guard Self.timeLeftToDecode else { return (.unavailable(.noTimeLeft), nil) }
        do {
            if try await budget.spendOne(deviceID: deviceID, now: now) == .exhausted {
                return (.rejected(.budgetExhausted), nil)
            }
        } catch {
            return (.unavailable(.budgetStoreFailed), nil)
        }

        switch await quota.admitDecode(now: now) {
        case .admitted: break
        case .capReached: return (.unavailable(.quotaSoftCapReached), nil)
        case .storeFailed: return (.unavailable(.quotaStoreFailed), nil)
        }
        guard Self.timeLeftToDecode else { return (.unavailable(.noTimeLeft), nil) }

        let payload: IntegrityPayload
        switch await decode(token, accessToken: accessToken) {
        case .payload(let decoded): payload = decoded
        case .failed(let result): return (result, nil)
        }

        let policies = VerdictPolicies.standard(
            configuration,
            expectedRequestHash: expectedRequestHash,
            deviceIntegrity: deviceIntegrity,
            maxDeviceActivity: maxDeviceActivity
        )
        switch policies.evaluate(payload, now: now) {
        case .pass: return (.genuine, payload)
        case .fail(let reason, _): return (.rejected(reason), nil)
        }
    }

    /// Step 1: refusals that cost nothing.
    static func precheck(_ token: String) -> PlayIntegrityError.Reason? {
        let bytes = token.utf8
        if bytes.isEmpty { return .tokenEmpty }
        if bytes.count > PlayIntegrityConfiguration.maxTokenCharacters { return .tokenTooLong }
        // Tokens are JWE compact serialisations: base64url segments and dots (standard base64 tolerated).
        let allowed: (UInt8) -> Bool = { c in
            (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a) || (c >= 0x30 && c <= 0x39)
                || c == 0x2d || c == 0x5f || c == 0x2e || c == 0x2b || c == 0x2f || c == 0x3d
        }
        return bytes.allSatisfy(allowed) ? nil : .tokenMalformed
    }

    private enum DecodeAnswer {
        case payload(IntegrityPayload)
        case failed(PlayIntegrityResult)
    }

    /// Whether the current work (the invocation, when there is one) leaves `ProviderAttempt.minimum` for a
    /// decode: below it Google is not asked (an answer could not arrive in time).
    private static var timeLeftToDecode: Bool { !ProviderAttempt.ranOutOfTime() }

    /// Step 5: the decode call and the mapping of its failures.
    private func decode(_ token: String, accessToken: String) async -> DecodeAnswer {
        var base = configuration.endpoint
        while base.hasSuffix("/") { base.removeLast() }
        let request = HTTPRequest(
            method: "POST",
            url: "\(base)/v1/\(configuration.packageName):decodeIntegrityToken",
            headers: [
                HTTPHeader("Authorization", "Bearer \(accessToken)"),
                HTTPHeader("Content-Type", "application/json"),
                HTTPHeader("Accept", "application/json"),
            ],
            body: JSONValue.object(["integrityToken": .string(token)]).serializedBytes,
            // Never past the invocation's deadline, at most `configuration.decodeTimeout`.
            timeout: Deadline.timeout(atMost: configuration.decodeTimeout),
            maxResponseBytes: 256 * 1024
        )
        let response: HTTPResponse
        do {
            response = try await transport.send(request)
        } catch {
            logger.warning("play integrity decode failed", ["reason": .string("play.decode_transport")])
            return .failed(.unavailable(.decodeTransport))
        }
        switch ProviderAnswer(status: response.status) {
        case .success where response.status == 200:
            guard let document = try? JSONValue.parse(response.body) else {
                return .failed(.rejected(.decodeMalformed))
            }
            do {
                return .payload(try IntegrityPayload(decodeResponse: document))
            } catch {
                return .failed(.rejected(error.reason))
            }
        case .rejected:
            return .failed(.rejected(.decodeInvalidToken))
        case .unauthorized:
            // Our access token (or the project link) is at fault, not the caller; a fresh token next time.
            await accessTokens.discardAccessToken()
            logger.warning("play integrity decode unauthorized", ["status": .int(Int64(response.status))])
            return .failed(.unavailable(.decodeUnauthorized))
        case .rateLimited:
            return .failed(.unavailable(.decodeRateLimited))
        case .unavailable:
            return .failed(.unavailable(response.status == 408 ? .decodeTransport : .decodeServerError))
        case .success, .refused:
            // Another client error: it cannot be shown to be ours, so it must not open the gate.
            return .failed(.rejected(.decodeRefused))
        }
    }
}
