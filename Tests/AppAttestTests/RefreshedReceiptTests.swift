import AttestCore
import Crypto
import CryptoTestSupport
import FoundationEssentials
import Testing

@testable import AppAttest

/// One `RECEIPT`-type receipt Apple's development receipt exchange returned (real captures in the
/// `veehaitch-ios-*.json` fixtures' `receipts`, with their risk metrics).
struct RefreshedReceiptFixture: CustomStringConvertible {
    let file: String
    let receipt: [UInt8]
    let verifyAt: Date
    let riskMetric: Int
    let notBefore: Date
    let expiration: Date
    let attestation: AttestationFixture

    var description: String { "\(file) at \(verifyAt)" }

    /// Every RECEIPT receipt of every fixture (the ATTEST ones are the attestations' own).
    static let all: [RefreshedReceiptFixture] = FixtureLoader.attestationFixtures.flatMap { file in
        let json = FixtureLoader.json(file)
        return (json["receipts"]?.arrayValue ?? []).compactMap { entry -> RefreshedReceiptFixture? in
            let fields = entry["fields"]
            guard fields?["receipt_type"]?.stringValue == "RECEIPT" else { return nil }
            return RefreshedReceiptFixture(
                file: file,
                receipt: Bytes.fromBase64(entry["receipt_b64"]?.stringValue ?? "") ?? [],
                verifyAt: parseDate(entry["verify_at"]?.stringValue ?? ""),
                riskMetric: Int(fields?["risk_metric"]?.stringValue ?? "") ?? -1,
                notBefore: parseDate(fields?["not_before"]?.stringValue ?? ""),
                expiration: parseDate(fields?["expiration_time"]?.stringValue ?? ""),
                attestation: AttestationFixture(file)
            )
        }
    }

    /// The ATTEST receipts in the same lists.
    static let attestReceipts: [(String, [UInt8], Date)] = FixtureLoader.attestationFixtures.flatMap { file in
        (FixtureLoader.json(file)["receipts"]?.arrayValue ?? []).compactMap { entry in
            guard entry["fields"]?["receipt_type"]?.stringValue == "ATTEST" else { return nil }
            return (
                file, Bytes.fromBase64(entry["receipt_b64"]?.stringValue ?? "") ?? [],
                parseDate(entry["verify_at"]?.stringValue ?? "")
            )
        }
    }
}

@Suite struct RefreshedReceiptTests {
    static let fixtures = RefreshedReceiptFixture.all

    static func verifier(
        _ fixture: AttestationFixture,
        production: Bool = false,
        bundleId: String? = nil
    )
        -> AppAttestVerifier
    {
        AppAttestVerifier(
            teamId: fixture.teamId,
            bundleIds: [bundleId ?? fixture.bundleId],
            environment: production ? .production : .development
        )
    }

    static func key(_ fixture: AttestationFixture) throws -> ECPublicKey {
        try ECPublicKey(p256X962: fixture.publicKeyX962)
    }

    @Test func theCapturesHoldRefreshedReceipts() {
        // 13 RECEIPT receipts over the seven iOS 14 captures; metrics 1 to 3.
        #expect(Self.fixtures.count == 13)
        #expect(Set(Self.fixtures.map(\.riskMetric)) == [1, 2, 3])
    }

    @Test(arguments: fixtures) func everyRealRefreshedReceiptVerifiesWithItsMetric(
        _ fixture: RefreshedReceiptFixture
    )
        throws
    {
        let refreshed = try Self.verifier(fixture.attestation).verifyRefreshedReceipt(
            fixture.receipt,
            publicKey: try Self.key(fixture.attestation),
            now: fixture.verifyAt
        )
        #expect(refreshed.riskMetric == fixture.riskMetric)
        #expect(refreshed.receipt.kind == .receipt)
        #expect(refreshed.receipt.environment == "sandbox")
        // Fractions of a second are not in the fixture's dates.
        #expect(abs(refreshed.notBefore.timeIntervalSince(fixture.notBefore)) < 1)
        #expect(abs(refreshed.expirationTime.timeIntervalSince(fixture.expiration)) < 1)
        #expect(refreshed.notBefore > refreshed.receipt.creationTime)
    }

    @Test(arguments: fixtures) func anotherKeyAppOrEnvironmentIsRefused(_ fixture: RefreshedReceiptFixture) throws {
        let otherKey = try P256PrivateKey().publicKey
        #expect(throws: AppAttestError(.receiptKeyMismatch)) {
            try Self.verifier(fixture.attestation).verifyRefreshedReceipt(
                fixture.receipt,
                publicKey: otherKey,
                now: fixture.verifyAt
            )
        }
        #expect(throws: AppAttestError(.receiptAppIdMismatch)) {
            try Self.verifier(fixture.attestation, bundleId: "com.example.other").verifyRefreshedReceipt(
                fixture.receipt,
                publicKey: try Self.key(fixture.attestation),
                now: fixture.verifyAt
            )
        }
        #expect(throws: AppAttestError(.receiptEnvironmentMismatch)) {
            try Self.verifier(fixture.attestation, production: true).verifyRefreshedReceipt(
                fixture.receipt,
                publicKey: try Self.key(fixture.attestation),
                now: fixture.verifyAt
            )
        }
    }

    @Test(arguments: fixtures) func anExpiredReceiptIsRefused(_ fixture: RefreshedReceiptFixture) throws {
        #expect(throws: AppAttestError(.receiptExpired)) {
            try Self.verifier(fixture.attestation).verifyRefreshedReceipt(
                fixture.receipt,
                publicKey: try Self.key(fixture.attestation),
                now: fixture.expiration.addingTimeInterval(60)
            )
        }
    }

    /// The exchange must return a RECEIPT: an ATTEST receipt (what we sent) is not a refreshed one.
    @Test func anAttestReceiptIsNotARefreshedOne() throws {
        try #require(!RefreshedReceiptFixture.attestReceipts.isEmpty)
        for (file, bytes, at) in RefreshedReceiptFixture.attestReceipts {
            let attestation = AttestationFixture(file)
            #expect(throws: AppAttestError(.receiptTypeUnexpected), "\(file)") {
                try Self.verifier(attestation).verifyRefreshedReceipt(
                    bytes,
                    publicKey: try Self.key(attestation),
                    now: at
                )
            }
        }
    }

    @Test func aTamperedTruncatedOrEmptyReceiptIsRefused() throws {
        let fixture = try #require(Self.fixtures.first)
        let verifier = Self.verifier(fixture.attestation)
        let key = try Self.key(fixture.attestation)
        var tampered = fixture.receipt
        // A byte of the signed content (the app id, early in the attribute SET).
        let appId = Array(fixture.attestation.teamId.utf8)
        let at = try #require(
            (0...(tampered.count - appId.count)).first { Array(tampered[$0..<$0 + appId.count]) == appId }
        )
        tampered[at] ^= 0x01
        for (name, bytes) in [
            ("tampered", tampered), ("truncated", Array(fixture.receipt.prefix(fixture.receipt.count / 2))),
            ("empty", []), ("huge", [UInt8](repeating: 0x30, count: RefreshedReceipt.maxBytes + 1)),
        ] {
            do {
                _ = try verifier.verifyRefreshedReceipt(bytes, publicKey: key, now: fixture.verifyAt)
                Issue.record("\(name) accepted")
            } catch {
                #expect(
                    [.receiptMalformed, .receiptSignatureInvalid].contains(error.reason),
                    "\(name): \(error)"
                )
            }
        }
    }

    /// Apple Root CA - G3 is the only receipt root: a synthetic trust refuses Apple's real receipts.
    @Test func theReceiptMustChainToTheReceiptRoot() throws {
        let fixture = try #require(Self.fixtures.first)
        let other = try Certificate(pemRepresentation: AppleRoots.appAttestationRootPEM)
        let verifier = AppAttestVerifier(
            teamId: fixture.attestation.teamId,
            bundleIds: [fixture.attestation.bundleId],
            environment: .development,
            trust: .synthetic(root: other)
        )
        #expect(throws: AppAttestError(.receiptUntrusted)) {
            try verifier.verifyRefreshedReceipt(
                fixture.receipt,
                publicKey: try Self.key(fixture.attestation),
                now: fixture.verifyAt
            )
        }
    }
}
