package import AttestCore
internal import CivilTime
package import FoundationEssentials

/// `POST /v1/attest/challenge` (docs/api.md section 2): a fresh single-use challenge for the device.
package struct ChallengeEndpoint: Sendable {
    let challenges: any ChallengeStore

    package init(challenges: any ChallengeStore) { self.challenges = challenges }

    /// - Parameters:
    ///   - deviceHeader: `X-Device-ID`.
    ///   - body: none, or a JSON object (`{}`).
    package func handle(deviceHeader: String?, body: [UInt8], now: Date, logger: Logger) async -> GateResponse {
        guard let deviceID = DeviceID.canonical(deviceHeader) else { return .refused(.invalidDeviceID) }
        if !body.isEmpty {
            guard body.count <= 1024, case .object? = try? JSONValue.parse(body) else {
                return .refused(.invalidRequest)
            }
        }
        do {
            let issued = try await challenges.issue(deviceID: deviceID, replacingSpent: false, now: now)
            let json = JSONValue.object([
                "challenge": .string(Bytes.base64(issued.bytes)), "expiresAt": .int(issued.expiresAt),
            ])
            return GateResponse(
                status: 200,
                headers: ["content-type": "application/json", "cache-control": "no-store"],
                body: json.serializedBytes
            )
        } catch is ChallengeIssueError {
            logger.warning("challenge issue bound reached", ["device": .string(Subject.device(deviceID).logSuffix)])
            let retryAfter = LocalCalendar.utc.secondsUntilNextDay(after: now)
            return .refused(
                .tooManyChallenges,
                headers: ["retry-after": String(retryAfter), "cache-control": "no-store"]
            )
        } catch {
            logger.error("challenge store failed", ["reason": .string(MeteredCall.slug(error))])
            return .refused(.unavailable, headers: ["cache-control": "no-store"])
        }
    }
}
