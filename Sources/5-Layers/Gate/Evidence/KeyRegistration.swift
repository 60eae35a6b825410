package import AppAttest
package import AttestCore
internal import Crypto
internal import DeviceCheck
package import FoundationEssentials
internal import WireContract

/// `POST /v1/attest/keys` (docs/api.md section 2): App Attest key registration, once per key.
///
/// Order (docs/api.md §2, key registration): the challenge is spent before any cryptography; the attestation is
/// verified with `clientDataHash = SHA-256(challenge)`; the key is then bound to the device ID (a key
/// that already belongs to another device ID is refused). Every failure is the same
/// `403 attestation_rejected`; the reason slug goes only to the log. With device marks on, the bound key's
/// device ID then gets its tier (`RegistrationTiering`), which only the log shows.
package struct KeyRegistration: Sendable {
    let challenges: any ChallengeStore
    let keys: any AppAttestKeyStore
    let verifier: AppAttestVerifier
    /// nil when `DEVICE_MARKS=off`: no tier step, no extra request.
    let tiering: RegistrationTiering?
    /// `ATTESTGATE_ENV`, the dimension of the `unavailable` metric a tier step counts.
    let environment: String
    /// The fraud-risk metric the tier step reads (nil: not asked, the receipt exchange is off).
    let risk: (any RegistrationRisk)?

    package init(
        challenges: any ChallengeStore,
        keys: any AppAttestKeyStore,
        verifier: AppAttestVerifier,
        tiering: RegistrationTiering? = nil,
        environment: String = "production",
        risk: (any RegistrationRisk)? = nil
    ) {
        self.challenges = challenges
        self.keys = keys
        self.verifier = verifier
        self.tiering = tiering
        self.environment = environment
        self.risk = risk
    }

    /// The route name of the registration's metric line.
    static let metricRoute = "attest_keys"

    /// Registration bodies carry one attestation (a few KiB with its receipt).
    static let maxBodyBytes = 64 * 1024

    package func handle(deviceHeader: String?, body: [UInt8], now: Date, logger: Logger) async -> GateResponse {
        guard let deviceID = DeviceID.canonical(deviceHeader) else { return .refused(.invalidDeviceID) }
        let device = Subject.device(deviceID).logSuffix
        guard body.count <= Self.maxBodyBytes, case .object(let fields)? = try? JSONValue.parse(body),
            let keyId = fields["keyId"]?.stringValue.flatMap({ Bytes.fromBase64($0) }), keyId.count == 32,
            let attestation = fields["attestation"]?.stringValue.flatMap({ Bytes.fromBase64($0) }),
            !attestation.isEmpty,
            let challenge = fields["challenge"]?.stringValue.flatMap({ Bytes.fromBase64($0) }),
            case .valid(let deviceCheckToken) = Self.deviceCheckToken(fields["deviceCheckToken"])
        else { return .refused(.invalidRequest) }

        let rejected = GateResponse.refused(.attestationRejected)
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
            return .refused(.unavailable)
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
        // Apple's nine steps decided; a receipt our own check refuses is stored marked unverified (docs/appattest.md).
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
            return .refused(.unavailable)
        }
        var logFields: [String: JSONValue] = ["binding": .string(binding.rawValue), "device": .string(device)]
        if let tiering {
            let outcome: RegistrationTiering.Outcome
            do {
                outcome = try await tiering.settle(
                    deviceID: deviceID,
                    deviceCheckToken: deviceCheckToken,
                    binding: binding,
                    // The receipt exchange (docs/appattest.md "The fraud-risk metric"), read with the mark.
                    risk: { [risk] in
                        await risk?.riskAtRegistration(
                            deviceID: deviceID,
                            registration: registration,
                            binding: binding,
                            now: now,
                            deadline: Deadline.forCall()
                        ) ?? .notAsked
                    },
                    riskMax: risk?.metricMax ?? 5,
                    now: now,
                    deadline: Deadline.forCall()
                )
            } catch {
                // The key stays bound: the client's retry re-registers it and runs the step again.
                logger.error(
                    "device tier store failed",
                    ["reason": .string(MeteredCall.slug(error)), "binding": .string(binding.rawValue)]
                )
                return .refused(.unavailable)
            }
            logFields["tier"] = .string(outcome.tier.rawValue)
            logFields["tierReason"] = .string(outcome.reason)
            logFields.merge(outcome.fields) { ours, _ in ours }
            if outcome.unavailable {
                var record = DecisionRecord(environment: environment, route: Self.metricRoute, mode: .enforce)
                record.count("unavailable")
                record.event = "key_registration"
                record.tier = outcome.tier.rawValue
                record.tierReason = outcome.reason
                record.device = device
                record.emit(to: logger, timestampMillis: Int64((now.timeIntervalSince1970 * 1000).rounded(.down)))
            }
        }
        if binding == .rebound {
            logger.warning("app attest key rebound", logFields)
        } else {
            logger.info("app attest key registered", logFields)
        }
        return GateResponse(
            status: 200,
            headers: ["content-type": "application/json", "cache-control": "no-store"],
            body: JSONValue.object(["binding": .string(binding.rawValue)]).serializedBytes
        )
    }

    /// The body's optional `deviceCheckToken`: absent is nil; present it must be a string of at
    /// most `DeviceCheckConfiguration.maxTokenCharacters` that decodes as non-empty base64.
    enum TokenField: Hashable {
        case valid(String?)
        case malformed
    }

    static func deviceCheckToken(_ value: JSONValue?) -> TokenField {
        guard let value else { return .valid(nil) }
        guard let text = value.stringValue, text.utf8.count <= DeviceCheckConfiguration.maxTokenCharacters,
            let bytes = Bytes.fromBase64(text), !bytes.isEmpty
        else { return .malformed }
        return .valid(text)
    }
}
