package import Crypto
internal import CryptoTestSupport
package import FoundationEssentials

extension SimulatedDevice {
    /// What a refreshed receipt says; nil fields are left out of the receipt.
    package struct RefreshedReceiptOptions: Sendable {
        /// Field 17, as Apple writes it: ASCII digits.
        package var riskMetric: String? = "1"
        /// Field 19: `notBefore` after the receipt's creation (Apple: one day).
        package var notBefore: Duration? = .seconds(86_400)
        /// Field 21: after the creation (Apple: 90 days).
        package var expiry: Duration = .seconds(90 * 86_400)
        /// Field 6 (genuine: `RECEIPT`).
        package var kind = "RECEIPT"

        package init() {}
    }

    /// A `RECEIPT` receipt as Apple's receipt exchange returns it for the key whose credential
    /// certificate is `credentialCertificateDER`, created at `now` and signed by this device's authority.
    package func refreshedReceipt(
        credentialCertificateDER: [UInt8],
        now: Date,
        options: RefreshedReceiptOptions = RefreshedReceiptOptions()
    ) throws(CryptoError) -> [UInt8] {
        func field(_ number: Int, _ value: [UInt8]) -> [UInt8] {
            DERWriter.sequence([DERWriter.integer(number), DERWriter.integer(1), DERWriter.octets(value)])
        }
        func text(_ string: String) -> [UInt8] { Array(string.utf8) }
        func seconds(_ duration: Duration) -> TimeInterval { TimeInterval(duration.components.seconds) }
        var fields = [
            field(2, text(appId)),
            field(3, credentialCertificateDER),
            // Apple's refreshed receipts carry a client hash of no use (replacement characters).
            field(4, Array("\u{FFFD}\u{FFFD}".utf8)),
            field(5, text("refreshed-token")),
            field(6, text(options.kind)),
            field(7, text(environment == .development ? "sandbox" : "production")),
            field(12, text(iso8601(now))),
            field(21, text(iso8601(now.addingTimeInterval(seconds(options.expiry))))),
        ]
        if let metric = options.riskMetric { fields.append(field(17, text(metric))) }
        if let notBefore = options.notBefore {
            fields.append(field(19, text(iso8601(now.addingTimeInterval(seconds(notBefore))))))
        }
        return try SignedData.sign(
            DERWriter.set(fields),
            signer: authority.receiptSigner,
            key: authority.receiptSignerKey,
            extraCertificates: [authority.receiptCA]
        )
    }
}

extension SimulatedAppleCA {
    /// The receipt signer's key (PKCS#8 PEM) and its chain below the root (signer, receipt CA; DER), for a fake
    /// Apple that issues `RECEIPT` receipts as this authority (`FakeAppleProcess.setReceiptSigner`).
    package var receiptSigning: (keyPEM: String, certificates: [[UInt8]]) {
        (receiptSignerKey.pemRepresentation, [receiptSigner.derRepresentation, receiptCA.derRepresentation])
    }
}
