/// The secret material a request is signed with.
///
/// `description` never prints the secret key or the session token.
package struct SigV4Credentials: Sendable, Hashable, CustomStringConvertible {
    package var accessKeyID: String
    package var secretAccessKey: String
    /// Present for temporary credentials (STS, Lambda's execution role); signed as `X-Amz-Security-Token`.
    package var sessionToken: String?

    package init(accessKeyID: String, secretAccessKey: String, sessionToken: String? = nil) {
        self.accessKeyID = accessKeyID
        self.secretAccessKey = secretAccessKey
        self.sessionToken = sessionToken
    }

    package var description: String {
        "SigV4Credentials(accessKeyID: \(accessKeyID), sessionToken: \(sessionToken == nil ? "none" : "present"))"
    }
}
