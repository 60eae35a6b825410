package import AppAttest
package import AttestCore
internal import Crypto
package import FoundationEssentials
internal import WireContract

/// `POST /v1/attest/keys` (docs/api.md section 2): App Attest key registration, once per key.
///
/// Order (docs/api.md §2, key registration): the challenge is spent before any cryptography; the attestation is
/// verified with `clientDataHash = SHA-256(challenge)`; the key is then bound to the device ID (a key
/// that already belongs to another device ID is refused). Every failure is the same
/// `403 attestation_rejected`; the reason slug goes only to the log.
package struct KeyRegistration: Sendable {
    let challenges: any ChallengeStore
    let keys: any AppAttestKeyStore
    let verifier: AppAttestVerifier

    package init(challenges: any ChallengeStore, keys: any AppAttestKeyStore, verifier: AppAttestVerifier) {
        self.challenges = challenges
        self.keys = keys
        self.verifier = verifier
    }

    /// Registration bodies carry one attestation (a few KiB with its receipt).
    static let maxBodyBytes = 64 * 1024

    package func handle(deviceHeader: String?, body: [UInt8], now: Date, logger: Logger) async -> MeteredResponse {
        guard let deviceID = DeviceID.canonical(deviceHeader) else { return .error(400, "invalid_device_id") }
        let device = Subject.device(deviceID).logSuffix
        guard body.count <= Self.maxBodyBytes, case .object(let fields)? = try? JSONValue.parse(body),
            let keyId = fields["keyId"]?.stringValue.flatMap({ Bytes.fromBase64($0) }), keyId.count == 32,
            let attestation = fields["attestation"]?.stringValue.flatMap({ Bytes.fromBase64($0) }),
            !attestation.isEmpty,
            let challenge = fields["challenge"]?.stringValue.flatMap({ Bytes.fromBase64($0) })
        else { return .error(400, "invalid_request") }

        let rejected = MeteredResponse.error(403, "attestation_rejected")
        do {
            guard try await challenges.spend(deviceID: deviceID, challenge: challenge, now: now) else {
                logger.info(
                    "key registration refused",
                    ["reason": .string(GateReason.challengeUnspendable.slug), "device": .string(device)]
                )
                return rejected
            }
        } catch {
            logger.error("challenge store failed", ["reason": .string(MeteredCall.slug(error))])
            return .error(503, "unavailable")
        }

        let registration: VerifiedRegistration
        do {
            registration = try verifier.verifyRegistration(
                keyId: keyId,
                attestation: attestation,
                clientDataHash: ChallengeBinding.appAttestClientDataHash(challenge: challenge),
                now: now
            )
        } catch {
            logger.info("key registration refused", ["reason": .string(error.reason.slug), "device": .string(device)])
            return rejected
        }
        // Apple's nine steps decided; a receipt our own check refuses is stored marked unverified (point 4).
        if let refusal = registration.receiptRefusal {
            logger.warning(
                "attestation receipt unverified",
                ["reason": .string(refusal.reason.slug), "device": .string(device)]
            )
        }

        let attested = registration.key
        let stored = StoredAppAttestKey(
            keyId: attested.keyId,
            publicKey: attested.publicKey.derRepresentation,
            counter: attested.counter,
            environment: attested.environment.rawValue,
            appId: attested.appId.string,
            risk: StoredRisk(unverified: !registration.receiptVerified)
        )
        let binding: KeyBinding
        do {
            guard let bound = try await keys.bind(deviceID: deviceID, key: stored, receipt: registration.receiptBytes)
            else {
                logger.warning(
                    "key registration refused",
                    ["reason": .string(GateReason.keyOwnedByOtherDevice.slug), "device": .string(device)]
                )
                return rejected
            }
            binding = bound
        } catch {
            logger.error("key store failed", ["reason": .string(MeteredCall.slug(error))])
            return .error(503, "unavailable")
        }
        let logFields: [String: JSONValue] = ["binding": .string(binding.rawValue), "device": .string(device)]
        if binding == .rebound {
            logger.warning("app attest key rebound", logFields)
        } else {
            logger.info("app attest key registered", logFields)
        }
        return MeteredResponse(
            status: 200,
            headers: ["content-type": "application/json", "cache-control": "no-store"],
            body: JSONValue.object(["binding": .string(binding.rawValue)]).serializedBytes
        )
    }
}
