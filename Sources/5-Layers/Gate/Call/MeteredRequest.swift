/// A metered call as the gate sees it, independent of the API Gateway payload version.
package struct MeteredRequest: Sendable {
    package var method: String
    /// The path exactly as the client sent it (`rawPath`), which request binding compares.
    package var rawPath: String
    /// Header values by lower-cased name.
    package var headers: [String: String]
    package var body: [UInt8]
    /// The JWT authorizer's `sub`, when the caller is signed in.
    package var userSub: String?
    /// Whether the signed-in caller carries the configured paid claim.
    package var paid: Bool

    package init(
        method: String,
        rawPath: String,
        headers: [String: String],
        body: [UInt8],
        userSub: String? = nil,
        paid: Bool = false
    ) {
        self.method = method
        self.rawPath = rawPath
        self.headers = headers
        self.body = body
        self.userSub = userSub
        self.paid = paid
    }

    package func header(_ name: String) -> String? { headers[name.lowercased()] }
}
