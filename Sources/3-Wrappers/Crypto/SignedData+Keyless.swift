extension SignedData {
    /// The parts of a PKCS#7 `SignedData` in the one shape App Attest receipts have, read without OpenSSL's
    /// PKCS#7, certificate or key decoders: SHA-256 as the only digest, the content embedded, no CRLs,
    /// exactly one signer identified by issuer and serial, no signed or unsigned attributes,
    /// ecdsa-with-SHA256 over the content itself. Nothing is verified: the certificates are bytes.
    ///
    /// For a caller that already holds a verdict on exactly these certificates (the receipt signer's
    /// cached chain, keyed by `chainDERs`) and the signer's key: `isSigned(by:)` is then the one check
    /// left. Whatever passes it, `init(verifyingSignatureOf:)` accepts too, with the same content and
    /// certificates; anything else goes through `init(verifyingSignatureOf:)`, which gives the verdict.
    package struct Envelope: Sendable {
        /// The embedded content.
        package let content: [UInt8]
        /// DER of the signer's certificate, then of every other carried certificate in order (copies
        /// of the signer left out), as `init(verifyingSignatureOf:)` orders `signer` and
        /// `otherCertificates`.
        package let chainDERs: [[UInt8]]
        let signature: [UInt8]

        /// Whether `key` (the signer's, from a verified source) signed the content.
        package func isSigned(by key: ECPublicKey) -> Bool { key.isValidSHA256Signature(signature, for: content) }
    }

    /// Reads `ber` as an `Envelope`.
    /// - Returns: nil when the shape differs or a part is malformed.
    package static func appAttestEnvelope(_ ber: [UInt8]) -> Envelope? {
        guard !ber.isEmpty, ber.count <= maxBytes else { return nil }
        var outer = BERReader(ber[...])
        guard let contentInfo = outer.next(), contentInfo.tag == 0x30, outer.isAtEnd else { return nil }
        var info = BERReader(contentInfo.value)
        guard info.next(tag: 0x06)?.elementsEqual(Self.signedDataOID) == true,
            let explicit = info.next(tag: 0xa0), info.isAtEnd
        else { return nil }
        var wrapper = BERReader(explicit)
        guard let body = wrapper.next(tag: 0x30), wrapper.isAtEnd else { return nil }

        // SignedData: version 1, digestAlgorithms, contentInfo, [0] certificates, signerInfos (no [1] CRLs).
        var fields = BERReader(body)
        guard fields.next(tag: 0x02)?.elementsEqual([1]) == true,
            let digests = fields.next(tag: 0x31), Self.isOnlySHA256(digests),
            let encapsulated = fields.next(tag: 0x30), let content = Self.embeddedData(encapsulated),
            let carried = fields.next(tag: 0xa0), let certificates = Self.certificateDERs(carried),
            let signerInfos = fields.next(tag: 0x31), fields.isAtEnd
        else { return nil }
        var signers = BERReader(signerInfos)
        guard let signerInfo = signers.next(tag: 0x30), signers.isAtEnd,
            let (issuerAndSerial, signature) = Self.signerFields(signerInfo)
        else { return nil }

        // The signer: the first carried certificate with that issuer and serial, byte for byte.
        guard
            let signer = certificates.first(where: {
                Self.issuerAndSerial(ofDER: $0)?.elementsEqual(issuerAndSerial) == true
            })
        else { return nil }
        return Envelope(
            content: content,
            chainDERs: [signer] + certificates.filter { $0 != signer },
            signature: signature
        )
    }

    /// 1.2.840.113549.1.7.2 (signedData) and 1.2.840.113549.1.7.1 (data).
    static let signedDataOID: [UInt8] = [0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x07, 0x02]
    static let dataOID: [UInt8] = [0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x07, 0x01]
    /// 2.16.840.1.101.3.4.2.1 (sha256) and 1.2.840.10045.4.3.2 (ecdsa-with-SHA256).
    static let sha256OID: [UInt8] = [0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x02, 0x01]
    static let ecdsaWithSHA256OID: [UInt8] = [0x2a, 0x86, 0x48, 0xce, 0x3d, 0x04, 0x03, 0x02]

    /// Whether `algorithm` (an AlgorithmIdentifier's contents) is `oid` with absent or NULL parameters.
    static func isAlgorithm(_ algorithm: ArraySlice<UInt8>, _ oid: [UInt8]) -> Bool {
        var reader = BERReader(algorithm)
        guard reader.next(tag: 0x06)?.elementsEqual(oid) == true else { return false }
        if reader.isAtEnd { return true }
        guard let parameters = reader.next(), parameters.tag == 0x05, parameters.value.isEmpty else { return false }
        return reader.isAtEnd
    }

    static func isOnlySHA256(_ digests: ArraySlice<UInt8>) -> Bool {
        var reader = BERReader(digests)
        guard let algorithm = reader.next(tag: 0x30), isAlgorithm(algorithm, sha256OID) else { return false }
        return reader.isAtEnd
    }

    /// `SEQUENCE { data OID, [0] EXPLICIT OCTET STRING }`: the embedded content.
    static func embeddedData(_ contentInfo: ArraySlice<UInt8>) -> [UInt8]? {
        var reader = BERReader(contentInfo)
        guard reader.next(tag: 0x06)?.elementsEqual(dataOID) == true, let explicit = reader.next(tag: 0xa0),
            reader.isAtEnd
        else { return nil }
        var inner = BERReader(explicit)
        guard let octetString = inner.next(), inner.isAtEnd, let content = BERReader.octets(octetString),
            content.count <= maxBytes
        else { return nil }
        return content
    }

    /// The carried certificates' DER, each a definite-length SEQUENCE; at most 8, as the full parser allows.
    static func certificateDERs(_ carried: ArraySlice<UInt8>) -> [[UInt8]]? {
        var reader = BERReader(carried)
        var certificates: [[UInt8]] = []
        while !reader.isAtEnd {
            guard certificates.count < 8, let element = reader.next(), element.tag == 0x30,
                element.encoded[element.encoded.index(after: element.encoded.startIndex)] != 0x80
            else { return nil }
            certificates.append(Array(element.encoded))
        }
        return certificates.isEmpty ? nil : certificates
    }

    /// SignerInfo: `version 1, issuerAndSerialNumber, sha256, ecdsa-with-SHA256, signature` and nothing
    /// else (no attributes). Returns the issuerAndSerialNumber contents and the signature.
    static func signerFields(_ signerInfo: ArraySlice<UInt8>) -> (ArraySlice<UInt8>, [UInt8])? {
        var reader = BERReader(signerInfo)
        guard reader.next(tag: 0x02)?.elementsEqual([1]) == true,
            let issuerAndSerial = reader.next(tag: 0x30),
            let digest = reader.next(tag: 0x30), isAlgorithm(digest, sha256OID),
            let algorithm = reader.next(tag: 0x30), isAlgorithm(algorithm, ecdsaWithSHA256OID),
            let signature = reader.next(tag: 0x04), reader.isAtEnd
        else { return nil }
        return (issuerAndSerial, Array(signature))
    }

    /// The DER of the certificate's issuer Name followed by its serial INTEGER, as an
    /// issuerAndSerialNumber's contents spell them.
    static func issuerAndSerial(ofDER certificate: [UInt8]) -> [UInt8]? {
        var outer = DERReader(certificate[...], allowLongForm: true)
        guard let body = outer.next(tag: 0x30) else { return nil }
        var sections = DERReader(body, allowLongForm: true)
        guard let tbs = sections.next(tag: 0x30) else { return nil }
        var fields = DERReader(tbs, allowLongForm: true)
        guard var serial = fields.next() else { return nil }
        if serial.tag == 0xa0 {  // [0] version, then the serial
            guard let next = fields.next() else { return nil }
            serial = next
        }
        guard serial.tag == 0x02, fields.next(tag: 0x30) != nil, let issuer = fields.next(), issuer.tag == 0x30 else {
            return nil
        }
        return Array(issuer.encoded) + Array(serial.encoded)
    }
}
