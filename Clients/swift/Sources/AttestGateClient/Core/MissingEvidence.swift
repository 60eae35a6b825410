/// Why a call carried no App Attest proof, as a bounded slug: App Attest's own reasons
/// (`appattest.feature_unsupported`, …) or the key registration's (`registration.rejected`, …).
public struct MissingEvidence: Hashable, Sendable, CustomStringConvertible {
    public let slug: String
    private init(_ slug: String) { self.slug = slug }
    public var description: String { slug }

    /// App Attest failed (`isSupported` false: `appattest.feature_unsupported`).
    public init(_ reason: AppAttestError.Reason) { slug = reason.slug }

    /// The server refused the key's attestation, also for a new key.
    public static let registrationRejected = MissingEvidence("registration.rejected")
    /// The key registration could not reach the server, or the server's store failed, after the retries.
    public static let registrationUnavailable = MissingEvidence("registration.unavailable")
    /// The server answered the registration with a refusal that names a bug (or App Attest is not
    /// configured there: `404`).
    public static let registrationInvalid = MissingEvidence("registration.invalid")

    /// The install made as many App Attest keys as it may in a day (`Configuration.maxNewKeysPerDay`).
    public static let keyLimit = MissingEvidence("registration.key_limit")

    static func registration(_ failure: RegistrationFailure) -> MissingEvidence {
        switch failure {
        case .rejected: .registrationRejected
        case .unavailable, .tooManyChallenges: .registrationUnavailable
        case .invalid: .registrationInvalid
        case .keyLimit: .keyLimit
        }
    }
}
