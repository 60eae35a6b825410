package import AttestCore
package import Crypto
package import FoundationEssentials
package import HTTPClient

/// DeviceCheck's two bits per device: `POST {endpoint}/v1/query_two_bits` and `/v1/update_two_bits`
/// (Apple, "Accessing and modifying per-device data"), with the same ES256 JWT and body fields as
/// `DeviceCheckClient.validate`.
///
/// Every call is bounded by the caller's `Deadline`: the attempt's timeout is the smaller of the
/// configuration's and what is left of the deadline, and no call starts with less than
/// `ProviderAttempt.minimum` left. Nothing is retried here (a retry is the caller's budget decision). With a
/// `DeviceCheckCharge`, one unit of that device ID's daily budget is spent per call, after our own JWT is
/// signed and before Apple is called: a failure of ours never costs a device its budget.
package struct DeviceCheckBitsClient: Sendable {
    private let configuration: DeviceCheckConfiguration
    private let key: P256PrivateKey
    private let transport: any HTTPTransport
    private let random: any RandomSource
    private let logger: Logger

    /// A call with less time left than this is not started.
    /// Apple's answers are a few dozen bytes; anything longer is cut off by the transport.
    static let maxAnswerBytes = 4096
    /// The text of Apple's `200` for a device whose bits were never set.
    static let neverSetText = "Failed to find bit state"

    package init(
        configuration: DeviceCheckConfiguration,
        key: P256PrivateKey,
        transport: any HTTPTransport,
        random: any RandomSource,
        logger: Logger
    ) {
        self.configuration = configuration
        self.key = key
        self.transport = transport
        self.random = random
        self.logger = logger
    }

    /// `query_two_bits` for `deviceToken` (the app's `DCDevice` token, base64).
    /// - Returns: the bits and the month of their last update, or `.neverSet`.
    /// - Throws: `TwoBitsError` for every other answer (see its reasons).
    /// - Parameter charge: whose budget pays (the gate always gives one; nil for tools that pay nothing).
    package func query(
        deviceToken: String,
        now: Date,
        deadline: Deadline,
        charge: DeviceCheckCharge? = nil
    ) async throws(TwoBitsError) -> TwoBitsState {
        let response = try await send(
            "/v1/query_two_bits",
            deviceToken: deviceToken,
            bits: [:],
            now: now,
            deadline: deadline,
            charge: charge
        )
        return try Self.parseQueryAnswer(response.body)
    }

    /// `update_two_bits`: sets the bits given (a nil bit is left as Apple has it). With neither bit given
    /// nothing is sent.
    /// - Throws: `TwoBitsError` unless Apple answered `200`.
    package func update(
        deviceToken: String,
        bit0: Bool? = nil,
        bit1: Bool? = nil,
        now: Date,
        deadline: Deadline,
        charge: DeviceCheckCharge? = nil
    ) async throws(TwoBitsError) {
        var bits: [String: JSONValue] = [:]
        if let bit0 { bits["bit0"] = .bool(bit0) }
        if let bit1 { bits["bit1"] = .bool(bit1) }
        guard !bits.isEmpty else { return }
        _ = try await send(
            "/v1/update_two_bits",
            deviceToken: deviceToken,
            bits: bits,
            now: now,
            deadline: deadline,
            charge: charge
        )
    }

    /// Sends one call and maps every status but `200` to its error.
    private func send(
        _ path: String,
        deviceToken: String,
        bits: [String: JSONValue],
        now: Date,
        deadline: Deadline,
        charge: DeviceCheckCharge?
    ) async throws(TwoBitsError) -> HTTPResponse {
        guard deviceToken.utf8.count <= DeviceCheckConfiguration.maxTokenCharacters,
            let decoded = Bytes.fromBase64(deviceToken), !decoded.isEmpty
        else { throw TwoBitsError(.tokenMalformed) }

        let call = AppleCall(
            teamID: configuration.teamID,
            keyID: configuration.keyID,
            key: key,
            endpoint: configuration.endpoint,
            timeout: configuration.timeout,
            transport: transport
        )
        var fields = bits
        fields["device_token"] = .string(deviceToken)
        fields["transaction_id"] = .string(Bytes.hex(random.bytes(16)))
        fields["timestamp"] = .int(Int64((now.timeIntervalSince1970 * 1000).rounded(.down)))
        let response: HTTPResponse
        do {
            response = try await call.send(charge: charge, now: now, deadline: deadline) { jwt, base, timeout in
                HTTPRequest(
                    method: "POST",
                    url: base + path,
                    headers: [
                        HTTPHeader("Authorization", "Bearer " + jwt), HTTPHeader("Content-Type", "application/json"),
                    ],
                    body: JSONValue.object(fields).serializedBytes,
                    timeout: timeout,
                    maxResponseBytes: Self.maxAnswerBytes
                )
            }
        } catch {
            switch error {
            case .signingFailed(let reason):
                logger.warning("devicecheck jwt signing failed", ["reason": .string(reason)])
                throw TwoBitsError(.signingFailed)
            case .deadline: throw TwoBitsError(.deadlineExceeded)
            case .budgetExhausted: throw TwoBitsError(.budgetExhausted)
            case .budgetStoreFailed: throw TwoBitsError(.budgetStoreFailed)
            case .transport: throw TwoBitsError(.serviceUnavailable)
            }
        }
        switch ProviderAnswer(status: response.status) {
        case .success where response.status == 200: return response
        case .rejected: throw TwoBitsError(.tokenRejected, status: 400)
        case .unauthorized:
            logger.warning("devicecheck refused our token", ["status": .int(Int64(response.status))])
            throw TwoBitsError(.unauthorized, status: response.status)
        case .rateLimited: throw TwoBitsError(.rateLimited, status: 429)
        case .unavailable: throw TwoBitsError(.serviceUnavailable, status: response.status)
        case .success, .refused: throw TwoBitsError(.refused, status: response.status)
        }
    }

    /// The body of a `200` from `query_two_bits`: `Failed to find bit state` (surrounding white space
    /// allowed), or a JSON object with booleans `bit0`, `bit1` and `last_update_time` `YYYY-MM` (other
    /// members are ignored).
    static func parseQueryAnswer(_ body: [UInt8]) throws(TwoBitsError) -> TwoBitsState {
        let isSpace: (UInt8) -> Bool = { $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }
        let trimmed = body.drop(while: isSpace).reversed().drop(while: isSpace).reversed()
        if Array(trimmed) == Array(neverSetText.utf8) { return .neverSet }
        guard let document = try? JSONValue.parse(body), document.objectValue != nil,
            case .bool(let bit0)? = document["bit0"], case .bool(let bit1)? = document["bit1"],
            let text = document["last_update_time"]?.stringValue, let month = BitsMonth(apple: text)
        else { throw TwoBitsError(.answerMalformed, status: 200) }
        return .bits(DeviceBits(bit0: bit0, bit1: bit1, lastUpdate: month))
    }
}
