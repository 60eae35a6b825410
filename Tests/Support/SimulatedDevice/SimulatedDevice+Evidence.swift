internal import AttestCore
internal import CBOR
internal import Crypto
internal import CryptoTestSupport
internal import FoundationEssentials

extension SimulatedDevice {
    /// rpIdHash ‖ flags ‖ counter ‖ aaguid ‖ credentialId length ‖ credentialId ‖ COSE key [‖ extensions].
    func attestationAuthData(_ key: SimulatedAppAttestKey, _ options: AttestationOptions) -> [UInt8] {
        let point = key.publicKey.x962Representation
        let credentialId = options.credentialId ?? key.keyId
        let coseKey: CBORValue = .map([
            CBORMapEntry(.unsigned(1), .unsigned(2)),  // kty: EC2
            CBORMapEntry(.unsigned(3), .negative(6)),  // alg: ES256 (-7)
            CBORMapEntry(.negative(0), .unsigned(1)),  // crv: P-256
            CBORMapEntry(.negative(1), .bytes(Array(point[1..<33]))),  // x
            CBORMapEntry(.negative(2), .bytes(Array(point[33..<65]))),  // y
        ])
        var data = Digest.sha256(Array((options.appId ?? appId).utf8))
        data.append(0x40)  // AT: attested credential data present (Apple never sets ED, even with extensions)
        data += bigEndian(options.counter)
        data += options.aaguid ?? environment.aaguid
        data += [UInt8(credentialId.count >> 8), UInt8(credentialId.count & 0xff)] + credentialId
        data += CBOREncoder.encode(coseKey)
        if options.newerFormat {
            data += CBOREncoder.encode(
                .map([
                    CBORMapEntry(.text("apple_bundle_version_01"), .text("1")),
                    CBORMapEntry(.text("apple_validation_category_01"), .bytes([1, 0, 0, 0])),
                ])
            )
        }
        return data
    }

    /// The credential certificate: P-256 leaf under the intermediate, nonce in 1.2.840.113635.100.8.2.
    func issueLeaf(
        for key: SimulatedAppAttestKey,
        nonce: [UInt8],
        now: Date,
        options: AttestationOptions
    ) throws(CryptoError) -> Certificate {
        var extensions: [CertificateBuilder.Extension] = []
        if !options.omitNonceExtension {
            // SEQUENCE { [1] { OCTET STRING nonce } }, short-form DER as Apple writes it.
            let value =
                options.nonceExtensionValue ?? DERWriter.sequence([DERWriter.element(0xa1, DERWriter.octets(nonce))])
            extensions.append(.init(oid: "1.2.840.113635.100.8.2", value: value))
        }
        if options.newerFormat {
            // extendedKeyUsage { 1.2.840.113635.100.4.24 }
            let oid: [UInt8] = [0x06, 0x09, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x63, 0x64, 0x04, 0x18]
            extensions.append(.init(oid: "2.5.29.37", value: DERWriter.sequence([oid])))
        }
        // Not Apple's: names the physical device, so that local-harness/fake_apple.py can answer a receipt
        // exchange with that device's risk metric (Apple knows the device; the fake reads this).
        extensions.append(
            .init(oid: "1.3.6.1.4.1.55555.17", value: DERWriter.octets(Array("simdevice:\(physicalID);".utf8)))
        )
        if options.unknownCriticalExtension {
            extensions.append(.init(oid: "1.3.6.1.4.1.55555.1", critical: true, value: [0x05, 0x00]))
        }
        let subjectKey =
            options.rsaLeafKey ? try GeneratedRSAKey.shared().publicKeyDER : key.privateKey.privateKey.publicKeyDER
        return try CertificateBuilder(
            subject: [
                ("CN", Bytes.hex(key.keyId)), ("OU", "AAA Certification"), ("O", "Apple Inc."), ("ST", "California"),
            ],
            serial: UInt64(truncatingIfNeeded: now.timeIntervalSince1970.bitPattern),
            notBefore: now.addingTimeInterval(options.leafValidity.lowerBound),
            notAfter: now.addingTimeInterval(options.leafValidity.upperBound),
            extensions: extensions
        ).issue(subjectPublicKeyDER: subjectKey, issuer: authority.intermediate, issuerKey: authority.intermediateKey)
    }

    /// An ATTEST receipt (Apple "Assessing fraud risk"): PKCS#7 over a SET of
    /// `SEQUENCE { INTEGER field, INTEGER version, OCTET STRING value }`.
    func attestReceipt(
        leaf: Certificate,
        clientDataHash: [UInt8],
        now: Date,
        options: AttestationOptions.ReceiptOptions
    ) throws(CryptoError) -> [UInt8] {
        func field(_ number: Int, _ value: [UInt8]) -> [UInt8] {
            DERWriter.sequence([DERWriter.integer(number), DERWriter.integer(1), DERWriter.octets(value)])
        }
        func text(_ string: String) -> [UInt8] { Array(string.utf8) }
        var certificate = leaf
        if options.otherKeyCertificate {
            let other = try SimulatedAppAttestKey()
            certificate = try issueLeaf(for: other, nonce: Digest.sha256([0]), now: now, options: .genuine)
        }
        let fields = [
            field(2, text(options.appId ?? appId)),
            field(3, certificate.derRepresentation),
            field(4, options.clientDataHash ?? clientDataHash),
            field(5, text(Bytes.base64(SecureRandom().bytes(48)))),
            field(6, text(options.kind ?? "ATTEST")),
            field(7, text(options.environment ?? (environment == .development ? "sandbox" : "production"))),
            field(12, text(iso8601(now))),
            field(21, text(iso8601(now.addingTimeInterval(90 * 86_400)))),
        ]
        let signer = options.signer ?? authority
        var receipt =
            options.signatureOverContent
            ? try SignedData.signOverContentWithSignedAttributes(
                DERWriter.set(fields),
                signer: signer.receiptSigner,
                key: signer.receiptSignerKey,
                extraCertificates: [signer.receiptCA]
            )
            : try SignedData.sign(
                DERWriter.set(fields),
                signer: signer.receiptSigner,
                key: signer.receiptSignerKey,
                extraCertificates: [signer.receiptCA]
            )
        if options.tamperAfterSigning, let index = receipt.firstRange(of: Array("ATTEST".utf8))?.lowerBound {
            receipt[index] = UInt8(ascii: "B")  // "BTTEST": still well-formed, no longer what was signed
        }
        return receipt
    }

    func iso8601(_ date: Date) -> String {
        let seconds = Int(date.timeIntervalSince1970.rounded(.down))
        var days = seconds / 86_400
        let rest = seconds % 86_400
        // civil_from_days (Howard Hinnant)
        days += 719_468
        let era = days / 146_097
        let doe = days - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let day = doy - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        let year = yoe + era * 400 + (month <= 2 ? 1 : 0)
        func two(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
        return "\(year)-\(two(month))-\(two(day))T\(two(rest / 3600)):\(two(rest / 60 % 60)):\(two(rest % 60)).000Z"
    }
}
