package import FoundationEssentials

/// Supplies the OAuth access token sent with every decode call. `GoogleAccessTokenProvider` is the real
/// one; tests inject fakes.
package protocol AccessTokenSource: Sendable {
    /// A bearer token valid at `now`.
    /// - Throws: `GoogleAuthError` when none can be obtained (the Play check is then `unavailable`).
    func accessToken(now: Date) async throws(GoogleAuthError) -> String

    /// Forgets the cached access token (not the key), e.g. after the decode endpoint answered 401.
    func discardAccessToken() async
}
