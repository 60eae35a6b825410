/// What one verification check concludes, in every verifier (App Attest's attestation steps and receipt
/// checks, Play Integrity's verdict policies): checks return results, only infrastructure throws.
///
/// `Reason` is the verifier's bounded slug type (`AppAttestError.Reason`, `PlayIntegrityError.Reason`);
/// `detail` is for logs and never shown to a client.
package enum PolicyResult<Reason: Sendable & Hashable>: Sendable, Hashable {
    case pass
    case fail(Reason, detail: String = "")
}
