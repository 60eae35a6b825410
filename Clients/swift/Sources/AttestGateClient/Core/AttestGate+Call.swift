extension AttestGate {
    /// The call's loop: attempts, the 403 recovery, and the retries; every path ends in an `Outcome`.
    func run(_ request: Request) async -> Outcome {
        do {
            try ClientData.check(method: request.method, path: request.path)
        } catch {
            return .invalidRequest(status: 0, code: error.reason.slug)
        }
        var retrier = makeRetrier()
        var recovery = Recovery()
        while true {
            let proof: Proof
            switch await makeProof(request, &retrier, &recovery) {
            case .proof(let made): proof = made
            case .stop(let outcome): return outcome
            }
            let response: TransportResponse
            do {
                response = try await api.send(
                    method: request.method,
                    path: request.path,
                    headers: proof.headers,
                    body: request.body,
                    contentType: request.contentType,
                    streamed: request.streamed
                )
            } catch {
                let failure = ServerAPI.transportError(error)
                guard failure.stage == .notSent else {
                    // The call may have been admitted (and the provider paid) before its answer was lost.
                    return .networkFailure(failure)
                }
                if let challenge = proof.challenge { await api.pool.offer(challenge) }  // never reached the server
                guard await retrier.again(failure.reason.slug) else { return .networkFailure(failure) }
                continue
            }
            await api.keepNextChallenge(response)
            switch await Answers.metered(response, streamed: request.streamed, configuration: configuration) {
            case .done(let outcome):
                return outcome
            case .retry(let outcome, let retryAfter):
                guard await retrier.again("http.\(response.status)", retryAfter: retryAfter) else { return outcome }
            case .refused:
                if let next = await recover(after: proof, &recovery) { return next }
            }
        }
    }

    /// `403 attestation_required`: what comes next (nil: one more attempt).
    ///
    /// After an App Attest proof: once more with a fresh challenge (the refusal's next one), then once with a
    /// new key (docs/operations.md section 1: "retry once with a fresh challenge; if refused again, generate,
    /// attest and register a new key, then retry"); refused again, `attestationRequired`. A call without
    /// proof, or with only DeviceCheck's, cannot do better here: `attestationUnavailable`.
    private func recover(after proof: Proof, _ recovery: inout Recovery) async -> Outcome? {
        switch proof {
        case .appAttest(_, let keyID, _):
            if !recovery.freshChallenge {
                recovery.freshChallenge = true
                configuration.onEvent?(.recovery(step: 1))
                return nil
            }
            // A new key only while the install may make one: a server that refuses every proof must not
            // cost a key per call.
            if !recovery.newKey, await registrar.mayMakeKey() {
                recovery.newKey = true
                configuration.onEvent?(.recovery(step: 2))
                await registrar.reject(keyID, reason: "proof.refused_twice")
                await lanes.forget(keyID)
                return nil
            }
            return .attestationRequired
        case .deviceCheck(_, _, let missing), .none(let missing):
            return .attestationUnavailable(missing)
        #if DEBUG
        case .debug:
            return .attestationRequired
        #endif
        }
    }

    /// How far one call's recovery got.
    struct Recovery: Sendable {
        var freshChallenge = false
        var newKey = false
        /// A key that Apple refused (`invalidKey`) was replaced once in this call.
        var replacedInvalidKey = false
    }
}
