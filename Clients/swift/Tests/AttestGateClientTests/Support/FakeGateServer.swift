import Foundation

@testable import AttestGateClient

/// The server's side of docs/api.md section 2 in miniature, as an in-process `HTTPTransport`: challenges
/// (single-use, per device ID, with expiry), key registration (the challenge spent first, the attestation
/// over `SHA-256(challenge bytes)`), and a metered route in `enforce` mode with request binding (the
/// challenge spent, the client data checked against the request, the assertion over `SHA-256(client data)`),
/// an allowance, and the next challenge on every gated answer. `FakeEnclave` makes what it checks. Tests
/// queue scripted answers per path to reach each failure.
actor FakeGateServer: HTTPTransport {
    /// A scripted answer to the next request to a path.
    enum Scripted: Sendable {
        case answer(status: Int, body: String, headers: [HTTPHeader] = [])
        /// No connection: the request never left.
        case notSent
        /// The request arrived and was processed, then the answer was lost.
        case lostAfterProcessing
        /// The real handling, then this status and body instead of its answer (a 503 after the work).
        case processThenAnswer(status: Int, body: String)
    }

    let clock: TestClock
    var allowance = 100
    var mode = "enforce"
    /// Metered calls whose proof is valid but that are refused with `403 attestation_required` anyway (a key
    /// the server no longer accepts), counted down.
    var refuseValidProofs = 0
    /// Accept `X-Debug-Token` values.
    var debugTokens: Set<String> = []
    /// Events a streamed answer sends (with `Accept: text/event-stream`).
    var streamEvents: [String]?
    private var scripts: [String: [Scripted]] = [:]
    private var challenges: [String: (device: String, expires: Int64, spent: Bool)] = [:]
    private(set) var keyOf: [String: String] = [:]
    private(set) var requests: [TransportRequest] = []
    private(set) var registrations: [(keyID: String, binding: String, deviceCheckToken: String?)] = []
    private var used: [String: Int] = [:]

    init(clock: TestClock) { self.clock = clock }

    func script(_ path: String, _ answers: Scripted...) { scripts[path, default: []] += answers }
    func set(refuseValidProofs count: Int) { refuseValidProofs = count }
    func set(mode: String) { self.mode = mode }
    func set(allowance: Int) { self.allowance = allowance }
    func set(streamEvents: [String]?) { self.streamEvents = streamEvents }
    func allowDebugToken(_ token: String) { debugTokens.insert(token) }

    /// The requests to `path`, in order.
    func sent(to path: String) -> [TransportRequest] { requests.filter { Self.path(of: $0.url) == path } }

    func send(_ request: TransportRequest) async throws -> TransportResponse {
        let path = Self.path(of: request.url)
        if var queue = scripts[path], !queue.isEmpty {
            let next = queue.removeFirst()
            scripts[path] = queue
            switch next {
            case .notSent:
                throw TransportError(.connectFailed, stage: .notSent, detail: "scripted")
            case .answer(let status, let body, let headers):
                requests.append(request)
                return Self.response(status, body, headers)
            case .lostAfterProcessing:
                requests.append(request)
                _ = handle(request, path: path)
                throw TransportError(.connectionLost, stage: .sent, detail: "scripted")
            case .processThenAnswer(let status, let body):
                requests.append(request)
                _ = handle(request, path: path)
                return Self.response(status, body, [])
            }
        }
        requests.append(request)
        return handle(request, path: path)
    }

    private var now: Int64 { Int64(clock.unixSeconds()) }

    private func handle(_ request: TransportRequest, path: String) -> TransportResponse {
        let device = request.header(WireHeader.deviceID) ?? ""
        switch path {
        case ServerAPI.challengePath:
            let challenge = issue(to: device)
            return Self.response(200, #"{"challenge":"\#(challenge)","expiresAt":\#(now + 300)}"#, [])
        case ServerAPI.keysPath:
            return register(request, device: device)
        default:
            return metered(request, device: device, path: path)
        }
    }

    private func issue(to device: String) -> String {
        let challenge = Bytes.base64(SHA256.hash(Array("challenge \(UUID())".utf8)))
        challenges[challenge] = (device, now + 300, false)
        return challenge
    }

    /// Spends `challenge` for `device`: false when unknown, another device's, expired or spent.
    private func spend(_ challenge: String?, device: String) -> Bool {
        guard let challenge, let entry = challenges[challenge], entry.device == device, !entry.spent,
            entry.expires > now
        else { return false }
        challenges[challenge]?.spent = true
        return true
    }

    private func register(_ request: TransportRequest, device: String) -> TransportResponse {
        guard let fields = try? JSONDecoder().decode([String: String].self, from: Data(request.body)),
            let keyID = fields["keyId"], let attestation = fields["attestation"].flatMap(Bytes.fromBase64),
            let challenge = fields["challenge"], let challengeBytes = Bytes.fromBase64(challenge)
        else { return Self.response(400, #"{"error":"invalid_request"}"#, []) }
        guard spend(challenge, device: device),
            String(decoding: attestation, as: UTF8.self)
                == "attest|\(keyID)|\(Bytes.hex(SHA256.hash(challengeBytes)))"
        else { return Self.response(403, #"{"error":"attestation_rejected"}"#, []) }
        let binding = keyOf[device] == nil ? "bound" : keyOf[device] == keyID ? "re_registered" : "rebound"
        keyOf[device] = keyID
        registrations.append((keyID, binding, fields["deviceCheckToken"]))
        return Self.response(200, #"{"binding":"\#(binding)"}"#, [])
    }

    private func metered(_ request: TransportRequest, device: String, path: String) -> TransportResponse {
        var headers = [HTTPHeader(WireHeader.nextChallenge, issue(to: device))]
        headers.append(HTTPHeader(WireHeader.nextChallengeExpires, "\(now + 300)"))
        let admitted: Bool
        if let token = request.header("X-Debug-Token") {
            admitted = debugTokens.contains(token)
        } else if request.header(WireHeader.appAttestKeyID) != nil {
            admitted = proofHolds(request, device: device, path: path)
        } else {
            admitted = mode != "enforce"
        }
        guard admitted else { return Self.response(403, #"{"error":"attestation_required"}"#, headers) }
        used[device, default: 0] += 1
        let left = allowance - used[device, default: 0]
        guard left >= 0 else {
            headers.append(HTTPHeader(WireHeader.retryAfter, "3600"))
            headers.append(HTTPHeader(WireHeader.quotaRemaining, "0"))
            return Self.response(429, #"{"error":"quota_exhausted"}"#, headers)
        }
        headers.append(HTTPHeader(WireHeader.quotaRemaining, "\(left)"))
        if let events = streamEvents, request.header("Accept") == "text/event-stream" {
            headers.append(HTTPHeader("Content-Type", "text/event-stream"))
            let chunks = events.map { Array("data: \($0)\n\n".utf8) }
            let stream = AsyncThrowingStream<[UInt8], any Error> { continuation in
                for chunk in chunks { continuation.yield(chunk) }
                continuation.finish()
            }
            return TransportResponse(status: 200, headers: headers, body: ResponseBody(chunks: stream, cancel: {}))
        }
        headers.append(HTTPHeader("Content-Type", "application/json"))
        return Self.response(200, #"{"served":true}"#, headers)
    }

    /// The proof checks of request binding, in the server's order: challenge spent, client data matching
    /// the request, the assertion over its hash by this device's key.
    private func proofHolds(_ request: TransportRequest, device: String, path: String) -> Bool {
        let challenge = request.header(WireHeader.challenge)
        guard spend(challenge, device: device), let keyID = request.header(WireHeader.appAttestKeyID),
            keyOf[device] == keyID, let header = request.header(WireHeader.clientData),
            let document = Bytes.fromBase64(header),
            let fields = try? JSONDecoder().decode([String: String].self, from: Data(document)),
            fields["challenge"] == challenge, fields["method"] == request.method, fields["path"] == path,
            fields["bodySHA256"] == Bytes.hex(SHA256.hash(request.body)),
            let assertion = request.header(WireHeader.appAttestAssertion).flatMap(Bytes.fromBase64),
            String(decoding: assertion, as: UTF8.self).hasPrefix("assert|\(keyID)|\(Bytes.hex(SHA256.hash(document)))|")
        else { return false }
        if refuseValidProofs > 0 {
            refuseValidProofs -= 1
            return false
        }
        return true
    }

    static func path(of url: String) -> String {
        URLComponents(string: url)?.path ?? url
    }

    static func response(_ status: Int, _ body: String, _ headers: [HTTPHeader]) -> TransportResponse {
        TransportResponse(status: status, headers: headers, body: ResponseBody(bytes: Array(body.utf8)))
    }
}
