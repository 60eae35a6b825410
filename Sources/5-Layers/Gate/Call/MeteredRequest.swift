package import AttestCore

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

/// The answer to a metered call.
package struct MeteredResponse: Sendable, Hashable {
    package var status: Int
    package var headers: [String: String]
    package var body: [UInt8]
    /// A streamed route's admitted call: the provider's body, passed on as it arrives (`body` is empty).
    package var stream: UpstreamStream?

    package init(status: Int, headers: [String: String] = [:], body: [UInt8], stream: UpstreamStream? = nil) {
        self.status = status
        self.headers = headers
        self.body = body
        self.stream = stream
    }

    /// The refusal's status and `{"error":"<code>"}` with JSON content type; the code never names the failed check.
    package static func refused(_ refusal: Refusal, headers: [String: String] = [:]) -> MeteredResponse {
        var all = headers
        all["content-type"] = "application/json"
        return MeteredResponse(status: refusal.status, headers: all, body: refusal.body)
    }
}
