package import AttestCore
package import Crypto
package import FoundationEssentials
package import HTTPClient

/// Validates DeviceCheck device tokens (`POST {DEVICECHECK_ENDPOINT}/v1/validate_device_token`).
///
/// Order: a token that is not base64 or is too long is `rejected` without cost; our JWT is signed (a
/// failure is `unavailable`, the budget untouched); with less than `ProviderAttempt.minimum` left of the invocation
/// it is `unavailable` and nothing is spent; one unit of the device ID's daily budget is spent (exhausted
/// `rejected`, store error `unavailable`), and the time is checked again (`AppleCall`: a call
/// Apple never gets costs nothing); then Apple is called, within the invocation's deadline. 200 →
/// `genuine`; 400 (invalid token) → `rejected`; 401/403 (our JWT) and 429/5xx/timeout → `unavailable`.
package struct DeviceCheckClient: Sendable {
    private let configuration: DeviceCheckConfiguration
    private let key: P256PrivateKey
    private let transport: any HTTPTransport
    private let budget: any DeviceDailyBudget
    private let random: any RandomSource
    private let logger: Logger

    package init(
        configuration: DeviceCheckConfiguration,
        key: P256PrivateKey,
        transport: any HTTPTransport,
        budget: any DeviceDailyBudget,
        random: any RandomSource,
        logger: Logger
    ) {
        self.configuration = configuration
        self.key = key
        self.transport = transport
        self.budget = budget
        self.random = random
        self.logger = logger
    }

    /// Below this much time left, Apple is not asked (an answer could not arrive) and nothing is spent.

    /// Validates `deviceToken` (`X-Device-Check-Token`) for `deviceID` (whose budget pays) at `now`.
    package func validate(deviceToken: String, deviceID: String, now: Date) async -> DeviceCheckResult {
        guard deviceToken.utf8.count <= DeviceCheckConfiguration.maxTokenCharacters,
            let decoded = Bytes.fromBase64(deviceToken), !decoded.isEmpty
        else { return .rejected(.tokenMalformed) }

        let call = AppleCall(
            teamID: configuration.teamID,
            keyID: configuration.keyID,
            key: key,
            endpoint: configuration.endpoint,
            timeout: configuration.timeout,
            transport: transport
        )
        let body = JSONValue.object([
            "device_token": .string(deviceToken),
            "transaction_id": .string(Bytes.hex(random.bytes(16))),
            "timestamp": .int(Int64((now.timeIntervalSince1970 * 1000).rounded(.down))),
        ])
        let response: HTTPResponse
        do {
            response = try await call.send(
                charge: DeviceCheckCharge(budget: budget, deviceID: deviceID),
                now: now,
                deadline: Deadline.current
            ) { jwt, base, timeout in
                HTTPRequest(
                    method: "POST",
                    url: base + "/v1/validate_device_token",
                    headers: [
                        HTTPHeader("Authorization", "Bearer " + jwt), HTTPHeader("Content-Type", "application/json"),
                    ],
                    body: body.serializedBytes,
                    timeout: timeout,
                    maxResponseBytes: 16 * 1024
                )
            }
        } catch {
            switch error {
            case .signingFailed(let reason):
                logger.warning("devicecheck jwt signing failed", ["reason": .string(reason)])
                return .unavailable(.signingFailed)
            case .budgetExhausted: return .rejected(.budgetExhausted)
            case .budgetStoreFailed: return .unavailable(.budgetStoreFailed)
            case .deadline, .transport: return .unavailable(.serviceUnavailable)
            }
        }
        switch ProviderAnswer(status: response.status) {
        case .success: return response.status == 200 ? .genuine : .rejected(.refused)
        case .rejected: return .rejected(.tokenRejected)
        case .unauthorized:
            logger.warning("devicecheck refused our token", ["status": .int(Int64(response.status))])
            return .unavailable(.unauthorized)
        case .rateLimited, .unavailable: return .unavailable(.serviceUnavailable)
        case .refused: return .rejected(.refused)
        }
    }
}
