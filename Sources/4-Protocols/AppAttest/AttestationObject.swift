internal import CBOR

/// The CBOR attestation object `{fmt, attStmt: {x5c, receipt}, authData}`, typed.
struct AttestationObject {
    let certificates: [[UInt8]]
    let receipt: [UInt8]
    let authenticatorDataBytes: [UInt8]
    let authenticatorData: AuthenticatorData

    static let format = "apple-appattest"
    /// Largest attestation object accepted; real ones are 5-8 KB.
    static let maxBytes = 32 * 1024

    /// Decodes and types the object.
    /// - Throws: `attestation_not_cbor`, `fmt_unexpected`, `att_stmt_malformed`, `auth_data_malformed`.
    init(_ bytes: [UInt8]) throws(AppAttestError) {
        let decoder = CBORDecoder(maxDepth: 4, maxElements: 16, maxInputBytes: Self.maxBytes)
        let root: CBORValue
        do { root = try decoder.decode(bytes) } catch {
            throw AppAttestError(.attestationNotCBOR, detail: error.reason.slug)
        }
        guard root.mapValue != nil else { throw AppAttestError(.attestationNotCBOR, detail: "top level is not a map") }
        guard root["fmt"]?.textValue == Self.format else { throw AppAttestError(.fmtUnexpected) }
        guard let statement = root["attStmt"], let x5c = statement["x5c"]?.arrayValue,
            let receipt = statement["receipt"]?.bytesValue
        else { throw AppAttestError(.attStmtMalformed, detail: "x5c array and receipt bytes required") }
        var certificates: [[UInt8]] = []
        for element in x5c {
            guard let der = element.bytesValue else { throw AppAttestError(.attStmtMalformed, detail: "x5c element") }
            certificates.append(der)
        }
        guard let authData = root["authData"]?.bytesValue else {
            throw AppAttestError(.authDataMalformed, detail: "authData bytes required")
        }
        guard let parsed = AuthenticatorData(authData, requireAttestedCredential: true) else {
            throw AppAttestError(.authDataMalformed)
        }
        self.certificates = certificates
        self.receipt = receipt
        self.authenticatorDataBytes = authData
        self.authenticatorData = parsed
    }
}
