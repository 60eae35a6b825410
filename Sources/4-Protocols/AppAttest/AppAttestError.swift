/// Why App Attest evidence was refused. Equality uses only `reason`; `detail`, `file` and `line`
/// are for logs. The reason slug goes to logs and metrics, never to the client.
package struct AppAttestError: Error, Hashable, CustomStringConvertible {
    /// A bounded reason slug (`appattest.*`).
    package struct Reason: Hashable, Sendable, CustomStringConvertible {
        package let slug: String
        private init(_ slug: String) { self.slug = slug }
        package var description: String { slug }

        // Attestation object shape.
        package static let attestationNotCBOR = Reason("appattest.attestation_not_cbor")
        package static let fmtUnexpected = Reason("appattest.fmt_unexpected")
        package static let attStmtMalformed = Reason("appattest.att_stmt_malformed")
        package static let authDataMalformed = Reason("appattest.auth_data_malformed")
        // Step 1: certificates.
        package static let certMalformed = Reason("appattest.cert_malformed")
        package static let chainLength = Reason("appattest.chain_length")
        package static let keyUnsupported = Reason("appattest.key_unsupported")
        package static let chainUntrusted = Reason("appattest.chain_untrusted")
        package static let certExpired = Reason("appattest.cert_expired")
        // Steps 2-4: the nonce.
        package static let nonceMissing = Reason("appattest.nonce_missing")
        package static let nonceMalformed = Reason("appattest.nonce_malformed")
        package static let nonceMismatch = Reason("appattest.nonce_mismatch")
        // Steps 5-9.
        package static let keyIdMismatch = Reason("appattest.key_id_mismatch")
        package static let appIdMismatch = Reason("appattest.app_id_mismatch")
        package static let counterNotZero = Reason("appattest.counter_not_zero")
        package static let aaguidMismatch = Reason("appattest.aaguid_mismatch")
        package static let credIdMismatch = Reason("appattest.cred_id_mismatch")
        package static let credentialKeyMismatch = Reason("appattest.credential_key_mismatch")
        // Receipts.
        package static let receiptMissing = Reason("appattest.receipt_missing")
        package static let receiptMalformed = Reason("appattest.receipt_malformed")
        package static let receiptSignatureInvalid = Reason("appattest.receipt_signature_invalid")
        package static let receiptUntrusted = Reason("appattest.receipt_untrusted")
        package static let receiptExpired = Reason("appattest.receipt_expired")
        package static let receiptAppIdMismatch = Reason("appattest.receipt_app_id_mismatch")
        package static let receiptKeyMismatch = Reason("appattest.receipt_key_mismatch")
        package static let receiptClientHashMismatch = Reason("appattest.receipt_client_hash_mismatch")
        package static let receiptTypeUnexpected = Reason("appattest.receipt_type_unexpected")
        package static let receiptEnvironmentMismatch = Reason("appattest.receipt_environment_mismatch")
        // Assertions.
        package static let assertionNotCBOR = Reason("appattest.assertion_not_cbor")
        package static let assertionMalformed = Reason("appattest.assertion_malformed")
        package static let assertionAppIdMismatch = Reason("appattest.assertion_app_id_mismatch")
        package static let assertionCounterReplay = Reason("appattest.assertion_counter_replay")
        package static let assertionBadSignature = Reason("appattest.assertion_bad_signature")
        // Inputs the caller handed in.
        package static let inputInvalid = Reason("appattest.input_invalid")
    }

    package let reason: Reason
    package let detail: String
    package let file: String
    package let line: UInt

    package init(_ reason: Reason, detail: String = "", file: String = #fileID, line: UInt = #line) {
        self.reason = reason
        self.detail = detail
        self.file = file
        self.line = line
    }

    package static func == (lhs: AppAttestError, rhs: AppAttestError) -> Bool { lhs.reason == rhs.reason }
    package func hash(into hasher: inout Hasher) { hasher.combine(reason) }
    package var description: String { detail.isEmpty ? reason.slug : "\(reason.slug): \(detail)" }
}
