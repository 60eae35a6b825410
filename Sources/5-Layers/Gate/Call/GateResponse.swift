package import AttestCore

/// What a gate handler answers (a metered call, the challenge endpoint, key registration): a status, headers,
/// and a body or, for a streamed route's admitted call, the provider's stream. The App turns it into the API
/// Gateway response.
package struct GateResponse: Sendable, Hashable {
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
    package static func refused(_ refusal: Refusal, headers: [String: String] = [:]) -> GateResponse {
        var all = headers
        all["content-type"] = "application/json"
        return GateResponse(status: refusal.status, headers: all, body: refusal.body)
    }
}
