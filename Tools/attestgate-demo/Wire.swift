internal import AttestCore
internal import Crypto
internal import FoundationEssentials
internal import HTTPClient

/// The HTTP API of docs/api.md section 2, as an app calls it: plain HTTP, JSON bodies, standard base64.
struct GateAPI: Sendable {
    let baseURL: String
    let transport = CurlTransport()

    /// The proof headers (docs/api.md section 2). Names are case-insensitive; these are the documented spellings.
    enum Header {
        static let deviceID = "X-Device-ID"
        static let challenge = "X-Attest-Challenge"
        static let keyID = "X-App-Attest-Key-Id"
        static let assertion = "X-App-Attest-Assertion"
        static let playToken = "X-Play-Integrity-Token"
        static let clientData = "X-Attest-Client-Data"
        static let nextChallenge = "X-Attest-Next-Challenge"
        static let quotaRemaining = "X-Quota-Remaining"
    }

    /// `POST /v1/attest/challenge`: a fresh single-use challenge for this device ID (base64 of 32 bytes).
    func challenge(deviceID: String) async throws -> String {
        let response = try await send("POST", "/v1/attest/challenge", headers: [HTTPHeader(Header.deviceID, deviceID)])
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

/// Request binding's client-data document (docs/api.md section 2, binding `request`).
///
/// The app hashes these exact bytes and sends them base64-encoded in `X-Attest-Client-Data`; the server
/// hashes the bytes it receives (no re-serialising), then checks each field against the request it got.
/// So a proof made for one call (challenge, method, path, body) cannot be stapled onto another.
struct ClientDataDocument {
    let bytes: [UInt8]

    init(challenge: String, method: String, path: String, body: [UInt8]) {
        bytes =
            JSONValue.object([
                "challenge": .string(challenge),  // the same base64 text as X-Attest-Challenge
                "method": .string(method),  // upper case
                "path": .string(path),  // the raw path, exactly as sent (no query)
                "bodySHA256": .string(Bytes.hex(Digest.sha256(body))),  // lower-case hex of the raw body
            ]).serializedBytes
    }

    /// iOS: `clientDataHash` passed to `generateAssertion`.
    var appAttestClientDataHash: [UInt8] { Digest.sha256(bytes) }
    /// Android: `requestHash` passed to `StandardIntegrityTokenProvider.request` (lower-case hex).
    var playRequestHash: String { Bytes.hex(Digest.sha256(bytes)) }
    /// The header value.
    var header: String { Bytes.base64(bytes) }
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
