/// The proof one request carries.
enum Proof: Sendable {
    /// An App Attest assertion over the call's client data, with the key that made it.
    case appAttest(challenge: Challenge, keyID: String, headers: [HTTPHeader])
    /// No App Attest proof; a DeviceCheck token and a challenge, for routes with `deviceCheckFallback`
    /// (elsewhere the server reads the call as carrying no proof).
    case deviceCheck(challenge: Challenge, headers: [HTTPHeader], missing: MissingEvidence)
    /// No proof at all: only `X-Device-ID`.
    case none(missing: MissingEvidence)
    #if DEBUG
    /// Debug builds: `X-Debug-Token`, and nothing of App Attest (no challenge either).
    case debug(headers: [HTTPHeader])
    #endif

    var headers: [HTTPHeader] {
        switch self {
        case .appAttest(_, _, let headers), .deviceCheck(_, let headers, _): headers
        case .none: []
        #if DEBUG
        case .debug(let headers): headers
        #endif
        }
    }

    /// The challenge the request spends, if it carries one.
    var challenge: Challenge? {
        switch self {
        case .appAttest(let challenge, _, _), .deviceCheck(let challenge, _, _): challenge
        default: nil
        }
    }
}

extension AttestGate {
    enum ProofResult: Sendable {
        case proof(Proof)
        case stop(Outcome)
    }

    /// The proof for one attempt of `request`: App Attest if it can be had, else the fallback, else none.
    func makeProof(_ request: Request, _ retrier: inout Retrier, _ recovery: inout Recovery) async -> ProofResult {
        #if DEBUG
        if let token = configuration.debugToken {
            return .proof(.debug(headers: [HTTPHeader(DebugToken.header, token)]))
        }
        #endif
        let missing: MissingEvidence
        switch await assertion(request, &retrier, &recovery) {
        case .made(let proof): return .proof(proof)
        case .stop(let outcome): return .stop(outcome)
        case .missing(let reason): missing = reason
        }
        configuration.onEvent?(.noEvidence(reason: missing.slug))
        guard configuration.deviceCheckOnCalls != .never, let token = await deviceCheckToken() else {
            return .proof(.none(missing: missing))
        }
        switch await api.challenge(&retrier) {
        case .issued(let challenge):
            let headers = [
                HTTPHeader(WireHeader.challenge, challenge.value),
                HTTPHeader(WireHeader.deviceCheckToken, Bytes.base64(token)),
            ]
            return .proof(.deviceCheck(challenge: challenge, headers: headers, missing: missing))
        case .failed(let outcome):
            return .stop(outcome)
        }
    }

    private enum AssertionResult: Sendable {
        case made(Proof)
        case stop(Outcome)
        case missing(MissingEvidence)
    }

    /// An App Attest proof for `request`: the key made ready (registered if needed), a challenge, the client
    /// data, and an assertion signed in the key's lane (one at a time per key).
    private func assertion(
        _ request: Request,
        _ retrier: inout Retrier,
        _ recovery: inout Recovery
    ) async
        -> AssertionResult
    {
        while true {
            let keyID: String
            switch await registrar.ready(&retrier) {
            case .ready(let ready, _): keyID = ready
            case .unavailable(let reason): return .missing(MissingEvidence(reason))
            case .failed(.tooManyChallenges): return .stop(.tooManyChallenges(retryAfter: nil))
            case .failed(let failure): return .missing(.registration(failure))
            }
            let challenge: Challenge
            switch await api.challenge(&retrier) {
            case .issued(let issued): challenge = issued
            case .failed(let outcome): return .stop(outcome)
            }
            let clientData: ClientData
            do {
                clientData = try ClientData(
                    challenge: challenge.value,
                    method: request.method,
                    path: request.path,
                    body: request.body
                )
            } catch {
                return .stop(.invalidRequest(status: 0, code: error.reason.slug))
            }
            let appAttest = platform.appAttest
            let hash = clientData.appAttestClientDataHash
            do {
                let signed = try await lanes.lane(keyID).run {
                    try await appAttest.generateAssertion(keyID, clientDataHash: hash)
                }
                var headers = [
                    HTTPHeader(WireHeader.challenge, challenge.value),
                    HTTPHeader(WireHeader.appAttestKeyID, keyID),
                    HTTPHeader(WireHeader.appAttestAssertion, Bytes.base64(signed)),
                    HTTPHeader(WireHeader.clientData, clientData.header),
                ]
                if configuration.deviceCheckOnCalls == .always, let token = await deviceCheckToken() {
                    headers.append(HTTPHeader(WireHeader.deviceCheckToken, Bytes.base64(token)))
                }
                return .made(.appAttest(challenge: challenge, keyID: keyID, headers: headers))
            } catch {
                await api.pool.offer(challenge)  // not sent: still unspent
                let failure = AppAttestError.from(error)
                guard failure.reason == .invalidKey else { return .missing(MissingEvidence(failure.reason)) }
                // The key is gone (a reinstall, a restore) or Apple rejected it: a new key, once per call.
                await registrar.reject(keyID, reason: failure.reason.slug)
                await lanes.forget(keyID)
                guard !recovery.replacedInvalidKey else { return .missing(MissingEvidence(failure.reason)) }
                recovery.replacedInvalidKey = true
            }
        }
    }

    /// A fresh DeviceCheck token, when the device can make one.
    private func deviceCheckToken() async -> [UInt8]? {
        guard await platform.deviceCheck.isSupported() else { return nil }
        return try? await platform.deviceCheck.generateToken()
    }
}
