import AttestCore
import Crypto
import FoundationEssentials
import SimulatedDevice
import Testing

@testable import AppAttest

/// Refreshed receipts from the simulated Apple CA: the metric and date fields real captures cannot vary.
@Suite struct SyntheticRefreshedReceiptTests {
    static let now = Date(timeIntervalSince1970: 1_790_000_000)
    static let authority = try! SimulatedAppleCA(now: now)
    static let device = SyntheticAttestationTests.device(of: authority)

    static let verifier = AppAttestVerifier(
        teamId: "ABCDE12345",
        bundleIds: ["com.example.gate"],
        environment: .production,
        trust: .synthetic(root: authority.root)
    )

    /// A registered key (its attestation verified) and a refreshed receipt for it made an hour later.
    static func registeredKey() throws -> AttestedKey {
        let key = try SimulatedAppAttestKey()
        let hash = Digest.sha256(Array("challenge".utf8))
        let attestation = try device.attest(key, clientDataHash: hash, now: now, options: .genuine)
        return try verifier.verifyRegistration(
            keyId: key.keyId,
            attestation: attestation,
            clientDataHash: hash,
            now: now
        )
        .key
    }

    static func verify(
        _ options: SimulatedDevice.RefreshedReceiptOptions,
        key: AttestedKey,
        at time: Date = now.addingTimeInterval(3600)
    ) throws(AppAttestError) -> RefreshedReceipt {
        let bytes: [UInt8]
        do {
            bytes = try device.refreshedReceipt(
                credentialCertificateDER: key.credentialCertificateDER,
                now: now.addingTimeInterval(60),
                options: options
            )
        } catch {
            throw AppAttestError(.inputInvalid, detail: "could not build the receipt: \(error)")
        }
        return try verifier.verifyRefreshedReceipt(bytes, publicKey: key.publicKey, now: time)
    }

    @Test(arguments: [("0", 0), ("1", 1), ("5", 5), ("12", 12), ("300", 300)])
    func theMetricIsRead(_ text: String, _ metric: Int) throws {
        let key = try Self.registeredKey()
        var options = SimulatedDevice.RefreshedReceiptOptions()
        options.riskMetric = text
        let refreshed = try Self.verify(options, key: key)
        #expect(refreshed.riskMetric == metric)
        #expect(refreshed.notBefore == Self.now.addingTimeInterval(60 + 86_400))
        #expect(refreshed.expirationTime == Self.now.addingTimeInterval(60 + 90 * 86_400))
        // With the stored credential certificate the key is proven by the same DER.
        let bytes = try Self.device.refreshedReceipt(
            credentialCertificateDER: key.credentialCertificateDER,
            now: Self.now
        )
        _ = try Self.verifier.verifyRefreshedReceipt(
            bytes,
            publicKey: key.publicKey,
            credentialCertificateDER: key.credentialCertificateDER,
            now: Self.now
        )
    }

    /// A metric that is missing, negative or not a number is never read as "low risk".
    @Test(arguments: [nil, "", "-1", "abc", "1.5", "99999999999999999999999"])
    func anUnreadableMetricIsMalformed(_ text: String?) throws {
        let key = try Self.registeredKey()
        var options = SimulatedDevice.RefreshedReceiptOptions()
        options.riskMetric = text
        #expect(throws: AppAttestError(.receiptMalformed)) { try Self.verify(options, key: key) }
    }

    @Test func aMissingNotBeforeIsMalformed() throws {
        let key = try Self.registeredKey()
        var options = SimulatedDevice.RefreshedReceiptOptions()
        options.notBefore = nil
        #expect(throws: AppAttestError(.receiptMalformed)) { try Self.verify(options, key: key) }
    }

    @Test func theExpiryIsField21() throws {
        let key = try Self.registeredKey()
        var options = SimulatedDevice.RefreshedReceiptOptions()
        options.expiry = .seconds(7200)
        _ = try Self.verify(options, key: key, at: Self.now.addingTimeInterval(7000))
        #expect(throws: AppAttestError(.receiptExpired)) {
            try Self.verify(options, key: key, at: Self.now.addingTimeInterval(7300))
        }
    }

    @Test func anAttestTypeIsNotARefreshedReceipt() throws {
        let key = try Self.registeredKey()
        var options = SimulatedDevice.RefreshedReceiptOptions()
        options.kind = "ATTEST"
        #expect(throws: AppAttestError(.receiptTypeUnexpected)) { try Self.verify(options, key: key) }
    }

    @Test func anotherKeysReceiptIsRefused() throws {
        let key = try Self.registeredKey()
        let other = try Self.registeredKey()
        let bytes = try Self.device.refreshedReceipt(
            credentialCertificateDER: other.credentialCertificateDER,
            now: Self.now
        )
        #expect(throws: AppAttestError(.receiptKeyMismatch)) {
            try Self.verifier.verifyRefreshedReceipt(bytes, publicKey: key.publicKey, now: Self.now)
        }
    }
}
