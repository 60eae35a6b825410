package import AppAttest
package import AttestCore
internal import CivilTime
internal import Crypto
package import DeviceCheck
package import FoundationEssentials

/// Apple's receipt exchange as the risk metric calls it: `ReceiptExchangeClient` (a fake in tests).
package protocol ReceiptExchanging: Sendable {
    func exchange(
        receipt: [UInt8],
        charge: DeviceCheckCharge?,
        now: Date,
        deadline: Deadline
    ) async throws(ReceiptExchangeError) -> ReceiptExchangeAnswer
}

extension ReceiptExchangeClient: ReceiptExchanging {}

/// App Attest's fraud-risk metric (docs/appattest.md "The fraud-risk metric"): a key's
/// receipt exchanged at Apple's `/v1/attestationData`, the `RECEIPT` that comes back verified
/// (`AppAttestVerifier.verifyRefreshedReceipt`: chain to the receipt root, app id, key, metric, not-before,
/// expiry) and stored on the key's row with its metric, not-before and the day of the exchange.
///
/// Every exchange is paid from the device ID's daily DeviceCheck budget after our JWT is signed, and bounded
/// by the deadline it is given (the invocation's less `margin`). Never throws: a failure is a signal.
package struct ReceiptRiskMetric: RegistrationRisk {
    let exchanger: any ReceiptExchanging
    let verifier: AppAttestVerifier
    let store: any RiskReceiptStore
    let budget: any DeviceDailyBudget
    package let metricMax: Int
    let logger: Logger
    /// Kept back from the invocation's deadline for our own answer.
    package var margin: Duration = .milliseconds(300)

    /// - Parameter metricMax: `RISK_METRIC_MAX`: a metric above it flags the device.
    package init(
        exchanger: any ReceiptExchanging,
        verifier: AppAttestVerifier,
        store: any RiskReceiptStore,
        budget: any DeviceDailyBudget,
        metricMax: Int,
        logger: Logger
    ) {
        self.exchanger = exchanger
        self.verifier = verifier
        self.store = store
        self.budget = budget
        self.metricMax = metricMax
        self.logger = logger
    }

    /// What one exchange came to (already stored).
    package enum Outcome: Sendable, Hashable {
        /// Apple returned a receipt that verified; it is stored with its metric.
        case verified(metric: Int, notBefore: Date)
        /// Apple answered 304 (asked before the stored receipt's not-before): the stored receipt is kept.
        case notModified
        /// No verified receipt: Apple failed or refused, or returned a receipt our check refused. The slug is
        /// for logs.
        case failed(String)
    }

    /// The day of an exchange: the DeviceCheck budget's UTC day (`risk_day`).
    static func day(_ now: Date) -> String { LocalCalendar.utc.day(at: now).iso }

    /// `deadline` less `margin`.
    func bounded(_ deadline: Deadline) -> Deadline { Deadline(deadline.instant - margin) }

    package func riskAtRegistration(
        deviceID: String,
        registration: VerifiedRegistration,
        binding: KeyBinding,
        now: Date,
        deadline: Deadline
    ) async -> RiskSignal {
        let outcome = await exchange(
            deviceID: deviceID,
            keyId: registration.key.keyId,
            publicKey: registration.key.publicKey,
            credentialCertificateDER: registration.key.credentialCertificateDER,
            receipt: registration.receiptBytes,
            now: now,
            deadline: bounded(deadline)
        )
        let signal: RiskSignal
        switch outcome {
        case .verified(let metric, _): signal = .metric(metric)
        case .notModified, .failed: signal = registration.receiptVerified ? .unavailable : .unverified
        }
        var fields: [String: JSONValue] = [
            "device": .string(Subject.device(deviceID).logSuffix), "signal": .string(Self.label(signal)),
        ]
        if case .failed(let reason) = outcome { fields["reason"] = .string(reason) }
        logger.info("risk metric read at registration", fields)
        return signal
    }

    /// Exchanges `receipt` for the key `keyId` of `deviceID`, verifies what Apple returns and stores the
    /// result on the key's row (conditional on the row still holding `keyId`). The day is stamped whenever
    /// Apple was asked, so a key is asked at most once a day; a call refused before Apple (budget, deadline,
    /// our JWT) stamps nothing.
    func exchange(
        deviceID: String,
        keyId: [UInt8],
        publicKey: ECPublicKey,
        credentialCertificateDER: [UInt8]?,
        receipt: [UInt8],
        now: Date,
        deadline: Deadline
    ) async -> Outcome {
        let day = Self.day(now)
        let answer: ReceiptExchangeAnswer
        do {
            answer = try await exchanger.exchange(
                receipt: receipt,
                charge: DeviceCheckCharge(budget: budget, deviceID: deviceID),
                now: now,
                deadline: deadline
            )
        } catch {
            if Self.appleWasAsked(error.reason) { await stamp(deviceID: deviceID, keyId: keyId, day: day) }
            return .failed(error.reason.slug)
        }
        switch answer {
        case .notModified:
            await stamp(deviceID: deviceID, keyId: keyId, day: day)
            return .notModified
        case .unverifiedReceipt(let bytes):
            let refreshed: RefreshedReceipt
            do {
                refreshed = try verifier.verifyRefreshedReceipt(
                    bytes,
                    publicKey: publicKey,
                    credentialCertificateDER: credentialCertificateDER,
                    now: now
                )
            } catch {
                logger.warning(
                    "refreshed receipt refused",
                    ["reason": .string(error.reason.slug), "device": .string(Subject.device(deviceID).logSuffix)]
                )
                await stamp(deviceID: deviceID, keyId: keyId, day: day)
                return .failed(error.reason.slug)
            }
            do {
                let stored = try await store.storeReceipt(
                    deviceID: deviceID,
                    keyId: keyId,
                    receipt: bytes,
                    metric: refreshed.riskMetric,
                    notBefore: refreshed.notBefore,
                    day: day
                )
                if !stored {
                    logger.info(
                        "risk receipt not stored: the key was replaced",
                        ["device": .string(Subject.device(deviceID).logSuffix)]
                    )
                }
            } catch {
                // The metric is Apple's and verified: it still counts for this call; the next due call asks again.
                logger.warning("risk receipt store failed", ["reason": .string(MeteredCall.slug(error))])
            }
            return .verified(metric: refreshed.riskMetric, notBefore: refreshed.notBefore)
        }
    }

    private func stamp(deviceID: String, keyId: [UInt8], day: String) async {
        do {
            _ = try await store.stampExchange(deviceID: deviceID, keyId: keyId, day: day)
        } catch {
            logger.warning("risk exchange day store failed", ["reason": .string(MeteredCall.slug(error))])
        }
    }

    /// Whether an exchange that failed with `reason` reached Apple (and so counts as the key's daily ask).
    static func appleWasAsked(_ reason: ReceiptExchangeError.Reason) -> Bool {
        switch reason {
        case .receiptInvalid, .signingFailed, .budgetExhausted, .budgetUnavailable, .deadlineExceeded: false
        default: true
        }
    }

    /// The signal as a log value.
    static func label(_ signal: RiskSignal) -> String {
        switch signal {
        case .metric(let value): "metric_\(value)"
        case .unverified: "unverified"
        case .unavailable: "unavailable"
        case .notAsked: "not_asked"
        }
    }
}
