/// The client-data document of request binding (docs/api.md section 2, "What the proof covers"):
/// `{"bodySHA256":…,"challenge":…,"method":…,"path":…}`.
///
/// The app sends these exact bytes, base64, in `X-Attest-Client-Data` and proves them: the App Attest
/// assertion signs `clientDataHash = SHA-256(bytes)`. The server hashes the bytes it received and compares
/// each member with the request it actually got, so a proof made for one call (challenge, method, path,
/// body) fits no other. The members are written as the server's own serializer writes them (sorted by key,
/// no blanks, `JSONText`'s escapes), so the same inputs give byte-identical documents on both sides; the
/// known-answer vectors in the tests come from the server's `WireContract.ClientData`.
struct ClientData: Sendable, Hashable {
    /// The exact bytes that are hashed and sent.
    let bytes: [UInt8]
    /// The `X-Attest-Challenge` value, standard base64 as the server issued it.
    let challenge: String
    /// Upper case.
    let method: String
    /// The raw path exactly as sent, without a query.
    let path: String
    /// Lower-case hex SHA-256 of the raw request body (of no bytes for an empty body).
    let bodySHA256: String

    /// The largest document the server reads.
    static let maxBytes = 2048

    /// The methods a metered route can have (docs/api.md section 5, `method`).
    static let methods: Set<String> = ["GET", "POST", "PUT", "PATCH", "DELETE"]

    /// The document for one request.
    /// - Throws: `ClientError` (`client.invalid_request`) for a method no route can have, a path that is not
    ///   an absolute, already percent-encoded path of visible ASCII without query or fragment, or a
    ///   document over `maxBytes`.
    init(challenge: String, method: String, path: String, body: [UInt8]) throws(ClientError) {
        try Self.check(method: method, path: path)
        let bodySHA256 = Bytes.hex(SHA256.hash(body))
        let bytes = JSONText.object([
            ("bodySHA256", bodySHA256), ("challenge", challenge), ("method", method), ("path", path),
        ])
        guard bytes.count <= Self.maxBytes else {
            throw ClientError(.invalidRequest, detail: "client data over \(Self.maxBytes) bytes")
        }
        self.bytes = bytes
        self.challenge = challenge
        self.method = method
        self.path = path
        self.bodySHA256 = bodySHA256
    }

    /// Refuses, before any I/O, what can never be a metered call of this library.
    static func check(method: String, path: String) throws(ClientError) {
        guard methods.contains(method) else {
            throw ClientError(.invalidRequest, detail: "method must be one of \(methods.sorted())")
        }
        let visible = path.utf8.allSatisfy {
            $0 >= 0x21 && $0 <= 0x7e && $0 != UInt8(ascii: "?") && $0 != UInt8(ascii: "#")
        }
        guard path.hasPrefix("/"), visible, path.utf8.count <= 1024 else {
            throw ClientError(
                .invalidRequest,
                detail: "path must start with / and hold only visible ASCII, without ? or #"
            )
        }
    }

    /// The `X-Attest-Client-Data` header value: standard base64 of `bytes`.
    var header: String { Bytes.base64(bytes) }

    /// App Attest's `clientDataHash` for request binding: SHA-256 of `bytes`.
    var appAttestClientDataHash: [UInt8] { SHA256.hash(bytes) }

    /// Play Integrity's `requestHash` for request binding: lower-case hex of the same SHA-256 (the Android
    /// library's rule; kept here so the vectors check the whole contract).
    var playRequestHash: String { Bytes.hex(appAttestClientDataHash) }
}

/// The hash rules of challenge binding (docs/api.md section 2), where no client-data document is sent. Key
/// registration always binds this way: `clientDataHash = SHA-256(challenge bytes)`.
enum ChallengeBinding {
    /// App Attest's `clientDataHash`: SHA-256 of the challenge's bytes.
    static func appAttestClientDataHash(challenge: [UInt8]) -> [UInt8] { SHA256.hash(challenge) }

    /// Play Integrity's `requestHash`: lower-case hex SHA-256 of `deviceID + "\n" + challenge` (as sent).
    static func playRequestHash(deviceID: String, challenge: String) -> String {
        Bytes.hex(SHA256.hash(Array("\(deviceID)\n\(challenge)".utf8)))
    }
}
