internal import AttestCore
internal import WireContract

/// `attestgate-demo wire-vectors`: known-answer vectors of the wire contract, computed by the server's own
/// code (`WireContract.ClientData`, `ChallengeBinding`, `WireHeader`, and `AttestCore`'s JSON serializer
/// that writes the client data). The Swift client's tests compare its own output with them
/// (`Clients/swift/Tests/AttestGateClientTests/Fixtures/wire-vectors.json`), and `Clients/swift/check.sh`
/// writes them again with this command and fails when the committed file differs: the client's document and
/// hashes are proven identical to the server's, and the fixture can never go stale.
enum WireVectorsCommand {
    /// Requests of every shape a client writes: bodies empty and not, each method, paths with a parameter,
    /// percent-encoding, and the visible characters JSON escapes (`"`, `\`).
    static let requests: [(challenge: String, method: String, path: String, body: [UInt8])] = [
        ("q83vEjRWeJCrze8SNFZ4kKvN7xI0VniQq83vEjRWeJA=", "POST", "/v1/generate", Array(#"{"photo":"abc"}"#.utf8)),
        ("AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=", "GET", "/v1/tutor/deck-biology/card-7", []),
        ("/////////////////////////////////////////w8=", "PUT", "/v1/decks/%E2%9C%93/cards", [0, 0xff, 0x0a]),
        ("c2FtZSBjaGFsbGVuZ2UsIGFub3RoZXIgcGF0aCEhISE=", "PATCH", #"/v1/odd/"quoted"\back/slash"#, Array("x".utf8)),
        ("c2FtZSBjaGFsbGVuZ2UsIGFub3RoZXIgcGF0aCEhISE=", "DELETE", "/v1/items/42", Array(repeating: 0x61, count: 1000)),
    ]

    /// Strings with every class of character the serializer treats apart.
    static let strings = [
        "plain", "quote \" backslash \\ slash /", "\n\r\t\u{08}\u{0C}\u{01}\u{1F}\u{7F}", "\u{2028}\u{2029}",
        "é ✓ 🙂", "",
    ]

    static func run(_ arguments: [String]) -> Int32 {
        guard arguments.isEmpty else {
            print("usage: attestgate-demo wire-vectors")
            return 2
        }
        print(vectors().serialized)
        return 0
    }

    static func vectors() -> JSONValue {
        let headers: [WireHeader] = [
            .deviceID, .challenge, .appAttestKeyID, .appAttestAssertion, .playIntegrityToken, .deviceCheckToken,
            .clientData, .quotaRemaining, .nextChallenge, .nextChallengeExpires,
        ]
        let requestBinding = requests.map { request -> JSONValue in
            let data = ClientData(
                challenge: request.challenge,
                method: request.method,
                path: request.path,
                body: request.body
            )
            return .object([
                "challenge": .string(request.challenge), "method": .string(request.method),
                "path": .string(request.path), "body": .string(Bytes.base64(request.body)),
                "document": .string(Bytes.base64(data.bytes)), "header": .string(data.header),
                "bodySHA256": .string(data.bodySHA256),
                "clientDataHash": .string(Bytes.hex(data.appAttestClientDataHash)),
                "requestHash": .string(data.playRequestHash),
            ])
        }
        let challengeBinding = requests.map { request -> JSONValue in
            let deviceID = "6f9619ff-8b86-d011-b42d-00c04fc964ff"
            return .object([
                "deviceID": .string(deviceID), "challenge": .string(request.challenge),
                "clientDataHash": .string(
                    Bytes.hex(
                        ChallengeBinding.appAttestClientDataHash(challenge: Bytes.fromBase64(request.challenge) ?? [])
                    )
                ),
                "requestHash": .string(
                    ChallengeBinding.playRequestHash(deviceID: deviceID, challengeBase64: request.challenge)
                ),
            ])
        }
        return .object([
            "headers": .array(headers.map { .string($0.name) }),
            "debugTokenHeader": .string(WireHeader.debugToken.name),
            "requestBinding": .array(requestBinding),
            "challengeBinding": .array(challengeBinding),
            "strings": .array(
                strings.map { .object(["value": .string($0), "json": .string(JSONValue.string($0).serialized)]) }
            ),
        ])
    }
}
