/// Where a secret comes from: Secrets Manager in AWS (`*_SECRET_ARN`) or a local file (`*_FILE`).
/// Only the location is configuration; the value is read by whoever needs it.
package enum SecretSource: Sendable, Hashable {
    case secretARN(String)
    case file(String)

    /// For `config check`: the kind and location, never the value.
    package var summary: String {
        switch self {
        case .secretARN(let arn): "secretsmanager:\(arn)"
        case .file(let path): "file:\(path)"
        }
    }
}
