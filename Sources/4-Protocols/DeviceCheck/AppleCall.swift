internal import AttestCore
internal import Crypto
internal import FoundationEssentials
internal import HTTPClient

/// One call to Apple's DeviceCheck servers with our `.p8` key, in the one order all three clients follow (the
/// token validation, the two bits, the App Attest receipt exchange; docs/playintegrity.md): our JWT is signed,
/// then the device's budget pays and the time left is checked (before and after), then the request is
/// sent with at most the client's timeout. So a call Apple never gets costs nothing, and every call Apple gets is
/// counted against one device ID. Each client reads the answer (`ProviderAnswer`) and names the failures in its
/// own reasons.
struct AppleCall {
    let teamID: String
    let keyID: String
    let key: P256PrivateKey
    /// The host, trailing slashes allowed.
    let endpoint: String
    let timeout: Duration
    let transport: any HTTPTransport

    /// Why the call was not made or got no answer.
    enum Failure: Error {
        /// Our JWT could not be signed (the reason slug of the key's error).
        case signingFailed(String)
        /// Less than the minimum attempt was left of the deadline, before or during the call.
        case deadline
        case budgetExhausted
        case budgetStoreFailed
        /// The request failed on its way (connection, timeout of its own).
        case transport
    }

    /// - Parameters:
    ///   - deadline: the invocation's; nil outside one (a tool): the call then gets the client's whole timeout.
    ///   - request: the request, given our JWT, the endpoint without its trailing slashes and the time the call
    ///     gets.
    func send(
        charge: DeviceCheckCharge?,
        now: Date,
        deadline: Deadline?,
        request: (_ jwt: String, _ base: String, _ timeout: Duration) -> HTTPRequest
    ) async throws(Failure) -> HTTPResponse {
        let jwt: String
        do {
            jwt = try DeviceCheckJWT.make(key: key, keyID: keyID, teamID: teamID, now: now)
        } catch {
            throw .signingFailed(error.reason.slug)
        }
        // The time is checked before the charge and again after it: a call Apple never gets costs nothing, and a
        // call that cost a unit still has time to be made.
        let limit = deadline ?? .after(timeout)
        guard limit.remaining >= ProviderAttempt.minimum else { throw .deadline }
        if let charge {
            let decision: DeviceBudgetDecision
            do {
                decision = try await charge.budget.spendOne(deviceID: charge.deviceID, now: now)
            } catch {
                throw .budgetStoreFailed
            }
            guard decision == .spent else { throw .budgetExhausted }
        }
        let remaining = limit.remaining
        guard remaining >= ProviderAttempt.minimum else { throw .deadline }
        var base = endpoint
        while base.hasSuffix("/") { base.removeLast() }
        do {
            return try await transport.send(request(jwt, base, deadline == nil ? timeout : min(timeout, remaining)))
        } catch {
            // The timeout is capped by the deadline, so the transport can call the deadline its own timeout early.
            throw ProviderAttempt.ranOutOfTime(deadline) ? .deadline : .transport
        }
    }
}
