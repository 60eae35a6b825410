internal import Crypto

/// The App ID `TEAMID.bundle.id` and its relying-party hash (Apple step 6).
package struct AppID: Sendable, Hashable {
    package let teamId: String
    package let bundleId: String

    package init(teamId: String, bundleId: String) {
        self.teamId = teamId
        self.bundleId = bundleId
    }

    /// `TEAMID.bundle.id`.
    package var string: String { "\(teamId).\(bundleId)" }

    /// SHA-256 of the App ID's UTF-8 bytes: the `rpIdHash` in authenticator data.
    package var rpIdHash: [UInt8] { Digest.sha256(Array(string.utf8)) }
}
