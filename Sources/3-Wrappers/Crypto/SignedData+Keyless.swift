extension SignedData {
    /// Parses and verifies `ber` without OpenSSL's PKCS#7 and key decoders, for the one shape App Attest
    /// receipts have: SHA-256 as the only digest, the content embedded, no CRLs, exactly one signer
    /// identified by issuer and serial, no signed or unsigned attributes, ecdsa-with-SHA256 over the
    /// content itself. The certificates are parsed with `KeyDecoding.deferred`; only the signer's key is
    /// built (from its SPKI fields), for the one signature check.
    ///
    /// This is a fast path that only ever accepts: every structure it accepts, with a valid signature,
    /// `init(verifyingSignatureOf:)` accepts too, with the same content, signer and other certificates.
    /// Deferred certificates cannot anchor or join a full chain build, so the result is for a caller
    /// that already holds a verdict on exactly these certificates (the receipt signer's cached chain);
    /// anything else goes through `init(verifyingSignatureOf:)`.
    /// - Returns: nil when the shape differs, a part is malformed or the signature does not verify: the
    ///   full parser then gives the verdict and its reason.
    package static func keylessVerifyingSignature(of ber: [UInt8]) -> SignedData? {
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
            let carried = fields.next(tag: 0xa0), let certificates = Self.certificates(carried),
            let signerInfos = fields.next(tag: 0x31), fields.isAtEnd
        else { return nil }
        var signers = BERReader(signerInfos)
        guard let signerInfo = signers.next(tag: 0x30), signers.isAtEnd,
            let (issuerAndSerial, signature) = Self.signerFields(signerInfo)
        else { return nil }

        // The signer: the carried certificate with that issuer and serial, byte for byte.
        guard
            let signer = certificates.first(where: {
                Self.issuerAndSerial(of: $0)?.elementsEqual(issuerAndSerial) == true
            }),
            let key = try? signer.publicKey(),
            key.isValidSHA256Signature(signature, for: content)
        else { return nil }
        return SignedData(content: content, signer: signer, otherCertificates: certificates.filter { $0 != signer })
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

    /// The carried certificates, parsed without their keys; at most 8, as the full parser allows.
    static func certificates(_ carried: ArraySlice<UInt8>) -> [Certificate]? {
        var reader = BERReader(carried)
        var certificates: [Certificate] = []
        while !reader.isAtEnd {
            guard certificates.count < 8, let element = reader.next(), element.tag == 0x30,
                let certificate = try? Certificate(derRepresentation: Array(element.encoded), keyDecoding: .deferred)
            else { return nil }
            certificates.append(certificate)
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
    static func issuerAndSerial(of certificate: Certificate) -> [UInt8]? {
        var outer = DERReader(certificate.derRepresentation[...], allowLongForm: true)
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
