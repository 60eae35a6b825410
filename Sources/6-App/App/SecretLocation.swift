package import AttestCore
internal import Crypto
package import HTTPClient
internal import SecretsManager
internal import SigV4

/// Where a secret lives: Secrets Manager in AWS (`*_SECRET_ARN`) or a local file (`*_FILE`).
/// Only the location is configuration; `source(...)` gives the reader that fetches the value.
package enum SecretLocation: Sendable, Hashable {
    case secretARN(String)
    case file(String)

    /// For `config check`: the kind and location, never the value.
    package var summary: String {
        switch self {
        case .secretARN(let arn): "secretsmanager:\(arn)"
        case .file(let path): "file:\(path)"
        }
    }

    /// The reader for this location: a file, or Secrets Manager in `AWS_REGION` with the function's
    /// credentials.
    /// - Throws: `StartupError` `.secretUnreadable` for an ARN when no AWS credentials are configured.
    package func source(
        configuration: Configuration,
        transport: any HTTPTransport
    ) throws(StartupError)
        -> any SecretSource
    {
        switch self {
        case .file(let path):
            return FileSecretSource(path: path)
        case .secretARN(let arn):
            guard let credentials = configuration.awsCredentials else {
                throw StartupError(.secretUnreadable, detail: "a *_SECRET_ARN needs AWS credentials")
            }
            let client = SecretsManagerClient(
                credentials: SigV4Credentials(
                    accessKeyID: credentials.accessKeyID,
                    secretAccessKey: credentials.secretAccessKey,
                    sessionToken: credentials.sessionToken
                ),
                region: configuration.awsRegion,
                transport: transport,
                random: SecureRandom()
            )
            return SecretsManagerSecretSource(client: client, secretID: arn)
        }
    }
}
