/// The client's requests to the server: challenges, key registration, and the metered calls themselves,
/// with the headers every one of them carries.
struct ServerAPI: Sendable {
    let configuration: Configuration
    /// Lower case: the server works with the lower-case form (docs/api.md section 2).
    let deviceID: String
    let transport: any HTTPTransport
    let pool: ChallengePool
    let clock: any ClientClock

    static let challengePath = "/v1/attest/challenge"
    static let keysPath = "/v1/attest/keys"

    /// What getting a challenge came to.
    enum ChallengeResult: Sendable {
        case issued(Challenge)
        case failed(Outcome)
    }

    /// What a key registration came to.
    enum RegistrationAnswer: Sendable {
        case bound(String)
        case rejected
        /// Worth sending again: `503 unavailable`, a platform 5xx, no connection (`lost`: the request may
        /// have arrived and bound the key).
        case retry(status: Int, lost: Bool)
        case failed(RegistrationFailure)
    }

    var now: Int64 { Int64(clock.unixSeconds()) }

    /// A challenge for this device ID: one handed out with an earlier answer, else a fresh one from
    /// `POST /v1/attest/challenge` (retried under the call's policy: issuing one is safe to repeat).
    func challenge(_ retrier: inout Retrier) async -> ChallengeResult {
        if let pooled = await pool.take(now: now) { return .issued(pooled) }
        while true {
            let step = await fetchChallenge()
            switch step {
            case .issued(let challenge): return .issued(challenge)
            case .failed(let outcome): return .failed(outcome)
            case .retry(let outcome, let reason, let retryAfter):
                guard await retrier.again(reason, retryAfter: retryAfter) else { return .failed(outcome) }
            }
        }
    }

    private enum Fetch: Sendable {
        case issued(Challenge)
        case retry(Outcome, reason: String, retryAfter: Double?)
        case failed(Outcome)
    }

    private func fetchChallenge() async -> Fetch {
        let request = TransportRequest(
            method: "POST",
            url: configuration.baseURL + Self.challengePath,
            headers: [HTTPHeader(WireHeader.deviceID, deviceID)],
            timeout: configuration.timeout
        )
        let response: TransportResponse
        let body: [UInt8]
        do {
            response = try await transport.send(request)
            body = try await response.body.collect(limit: 4096)
        } catch {
            let failure = Self.transportError(error)
            return .retry(.networkFailure(failure), reason: failure.reason.slug, retryAfter: nil)
        }
        let retryAfter = Answers.seconds(response.header(WireHeader.retryAfter))
        let code = Answers.errorCode(body)
        switch response.status {
        case 200:
            guard let challenge = Answers.issuedChallenge(body) else {
                return .failed(
                    .networkFailure(TransportError(.failed, stage: .responseStarted, detail: "no challenge"))
                )
            }
            return .issued(challenge)
        case 429 where code == "too_many_challenges":
            return .failed(.tooManyChallenges(retryAfter: retryAfter))
        case 429, 500...:
            // Our store failed (503 unavailable), or the platform did: issuing a challenge is safe to repeat.
            let outcome = Outcome.serviceUnavailable(status: response.status, retryAfter: retryAfter)
            return .retry(outcome, reason: "http.\(response.status)", retryAfter: retryAfter)
        default:
            return .failed(.invalidRequest(status: response.status, code: code))
        }
    }

    /// `POST /v1/attest/keys` with an attestation over `SHA-256(challenge bytes)`.
    func register(
        keyID: String,
        attestation: [UInt8],
        challenge: String,
        deviceCheckToken: [UInt8]?
    ) async
        -> RegistrationAnswer
    {
        var members: [(key: String, value: String)] = [
            ("attestation", Bytes.base64(attestation)), ("challenge", challenge),
        ]
        if let deviceCheckToken { members.append(("deviceCheckToken", Bytes.base64(deviceCheckToken))) }
        members.append(("keyId", keyID))
        let request = TransportRequest(
            method: "POST",
            url: configuration.baseURL + Self.keysPath,
            headers: [HTTPHeader(WireHeader.deviceID, deviceID), HTTPHeader("Content-Type", "application/json")],
            body: JSONText.object(members),
            timeout: configuration.timeout
        )
        let response: TransportResponse
        let body: [UInt8]
        do {
            response = try await transport.send(request)
            body = try await response.body.collect(limit: 4096)
        } catch {
            return .retry(status: 0, lost: Self.transportError(error).stage != .notSent)
        }
        let code = Answers.errorCode(body)
        switch (response.status, code) {
        case (200, _):
            guard let binding = Answers.binding(body) else { return .retry(status: 200, lost: true) }
            return .bound(binding)
        case (403, "attestation_rejected"): return .rejected
        case (429, "too_many_challenges"): return .failed(.tooManyChallenges)
        // The server spends the challenge before anything else, so even `503 unavailable` may come after the
        // key was bound (docs/api.md section 2): a resend that finds the challenge spent is then expected.
        case (let status, _) where status >= 500: return .retry(status: status, lost: true)
        default: return .failed(.invalid(status: response.status, code: code))
        }
    }

    /// Sends one metered request.
    func send(
        method: String,
        path: String,
        headers: [HTTPHeader],
        body: [UInt8],
        contentType: String?,
        streamed: Bool
    ) async throws -> TransportResponse {
        var all = [HTTPHeader(WireHeader.deviceID, deviceID)] + headers
        if let contentType, !body.isEmpty { all.append(HTTPHeader("Content-Type", contentType)) }
        if streamed { all.append(HTTPHeader("Accept", "text/event-stream")) }
        let request = TransportRequest(
            method: method,
            url: configuration.baseURL + path,
            headers: all,
            body: body,
            timeout: configuration.timeout
        )
        return try await transport.send(request)
    }

    /// Keeps an answer's `X-Attest-Next-Challenge` for a later call (every gated answer carries one, also
    /// a refusal).
    func keepNextChallenge(_ response: TransportResponse) async {
        guard let value = response.header(WireHeader.nextChallenge), Challenge.isWellFormed(value) else { return }
        let expires = Answers.seconds(response.header(WireHeader.nextChallengeExpires)).map { Int64($0) } ?? now + 30
        await pool.offer(Challenge(value: value, expiresAt: expires))
    }

    /// Any error a transport threw, as a `TransportError` (an unknown one counts as possibly sent).
    static func transportError(_ error: any Error) -> TransportError {
        error as? TransportError ?? TransportError(.failed, stage: .sent, detail: "\(error)")
    }
}
