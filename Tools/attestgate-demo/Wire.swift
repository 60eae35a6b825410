internal import AttestCore
internal import Crypto
internal import FoundationEssentials
internal import HTTPClient
internal import WireContract

/// The HTTP API of docs/api.md section 2, as an app calls it: plain HTTP, JSON bodies, standard base64.
struct GateAPI: Sendable {
    let baseURL: String
    let transport = CurlTransport()

    /// `POST /v1/attest/challenge`: a fresh single-use challenge for this device ID (base64 of 32 bytes).
    func challenge(deviceID: String) async throws -> String {
        let response = try await send(
            "POST",
            "/v1/attest/challenge",
            headers: [HTTPHeader(WireHeader.deviceID.name, deviceID)]
        )
        guard response.status == 200, let challenge = (try? JSONValue.parse(response.body))?["challenge"]?.stringValue
        else { throw DemoError("challenge: HTTP \(response.status) \(response.text)") }
        return challenge
    }

    /// One request to the front; `body` is sent as is (its SHA-256 is what request binding covers).
    func send(
        _ method: String,
        _ path: String,
        headers: [HTTPHeader] = [],
        body: [UInt8] = []
    ) async throws
        -> HTTPResponse
    {
        var all = headers
        if !body.isEmpty { all.append(HTTPHeader("Content-Type", "application/json")) }
        return try await transport.send(
            HTTPRequest(method: method, url: baseURL + path, headers: all, body: body, timeout: .seconds(30))
        )
    }
}

struct DemoError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

extension HTTPResponse {
    var text: String { String(decoding: body, as: UTF8.self) }
    /// The `error` code of a refusal body (`{"error":"…"}`), if any.
    var errorCode: String? { (try? JSONValue.parse(body))?["error"]?.stringValue }
}
