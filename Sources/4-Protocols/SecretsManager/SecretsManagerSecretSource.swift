internal import AWSJSON
package import AttestCore

/// A `SecretSource` reading one secret from Secrets Manager by ARN (`GOOGLE_SERVICE_ACCOUNT_SECRET_ARN`,
/// `DEVICECHECK_PRIVATE_KEY_SECRET_ARN`, `UPSTREAM_API_KEY_SECRET_ARN`).
package struct SecretsManagerSecretSource: SecretSource {
    private let client: SecretsManagerClient
    private let secretID: String
    private let timeout: Duration

    /// - Parameters:
    ///   - secretID: the secret's ARN (or name).
    ///   - timeout: the time allowed for one read, retries included; never past the current work's deadline
    ///     (`Deadline.current`: a secret read lazily during an invocation ends within it).
    package init(client: SecretsManagerClient, secretID: String, timeout: Duration = .seconds(5)) {
        self.client = client
        self.secretID = secretID
        self.timeout = timeout
    }

    package func readSecret() async throws(SecretSourceError) -> [UInt8] {
        do {
            return try await client.getSecretValue(secretID, deadline: .after(Deadline.timeout(atMost: timeout))).bytes
        } catch {
            let notFound = error.reason == .resourceNotFound
            throw SecretSourceError(notFound ? .notFound : .unavailable, detail: error.reason.slug)
        }
    }
}
