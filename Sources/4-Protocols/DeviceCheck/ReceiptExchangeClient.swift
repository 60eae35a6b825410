package import AttestCore
package import Crypto
package import FoundationEssentials
package import HTTPClient

/// Where and how to exchange App Attest receipts (Apple, "Assessing fraud risk").
package struct ReceiptExchangeConfiguration: Sendable {
    /// `APPLE_TEAM_ID`: the JWT's `iss`.
    package var teamID: String
    /// The DeviceCheck key's id (the same `.p8` signs both): the JWT's `kid`.
    package var keyID: String
    /// The host: `productionEndpoint` or `developmentEndpoint` by the App Attest environment.
    package var endpoint: String
    /// The longest one call may take (the caller's deadline may cut it shorter).
    package var timeout: Duration

    package static let productionEndpoint = "https://data.appattest.apple.com"
    package static let developmentEndpoint = "https://data-development.appattest.apple.com"

    package init(teamID: String, keyID: String, endpoint: String = productionEndpoint, timeout: Duration = .seconds(3))
    {
        self.teamID = teamID
        self.keyID = keyID
        self.endpoint = endpoint
        self.timeout = timeout
    }
}

/// What the receipt exchange answered.
package enum ReceiptExchangeAnswer: Sendable, Hashable {
    /// `200`: a new receipt (DER, decoded from Apple's base64), still to be verified
    /// (`AppAttestVerifier.verifyRefreshedReceipt`) before anything reads it.
    case unverifiedReceipt([UInt8])
    /// `304`: asked before the stored receipt's not-before; keep it.
    case notModified
}

/// Why an exchange gave no answer: the reason slug for logs and metrics.
package struct ReceiptExchangeError: Error, Hashable, CustomStringConvertible {
    package struct Reason: Hashable, Sendable, CustomStringConvertible {
        package let slug: String
        private init(_ slug: String) { self.slug = slug }
        package var description: String { slug }

        /// The receipt we hold is empty or too large to send; Apple was not called.
        package static let receiptInvalid = Reason("receipt_exchange.receipt_invalid")
        /// `400`: Apple refused the receipt.
        package static let receiptRejected = Reason("receipt_exchange.receipt_rejected")
        /// `401`/`403`: Apple refused our JWT.
        package static let unauthorized = Reason("receipt_exchange.unauthorized")
        /// `404`: Apple no longer holds data for this receipt (kept 30 days after the attestation).
        package static let notFound = Reason("receipt_exchange.not_found")
        /// `429`.
        package static let rateLimited = Reason("receipt_exchange.rate_limited")
        /// `5xx`, `408`, a timeout or a connection failure.
        package static let serviceUnavailable = Reason("receipt_exchange.unavailable")
        /// Too little of the deadline was left, or it passed during the call.
        package static let deadlineExceeded = Reason("receipt_exchange.deadline")
        /// A `200` whose body is not base64.
        package static let answerMalformed = Reason("receipt_exchange.answer_malformed")
        /// Signing our JWT failed.
        package static let signingFailed = Reason("receipt_exchange.signing_failed")
        /// Another status.
        package static let refused = Reason("receipt_exchange.refused")
        /// The device ID's daily DeviceCheck budget is spent; Apple was not called.
        package static let budgetExhausted = Reason("receipt_exchange.budget_exhausted")
        /// The budget's store failed; Apple was not called.
        package static let budgetUnavailable = Reason("receipt_exchange.budget_unavailable")
    }

    package let reason: Reason
    package let status: Int?

    package init(_ reason: Reason, status: Int? = nil) {
        self.reason = reason
        self.status = status
    }

    /// Equality uses only `reason`; `status` is for logs.
    package static func == (lhs: ReceiptExchangeError, rhs: ReceiptExchangeError) -> Bool { lhs.reason == rhs.reason }
    package func hash(into hasher: inout Hasher) { hasher.combine(reason) }
    package var description: String { status.map { "\(reason.slug) (\($0))" } ?? reason.slug }
}

/// `POST {endpoint}/v1/attestationData`: the body is the current receipt in base64, the header
/// `Authorization: <JWT>` (the DeviceCheck ES256 JWT, without a scheme, as Apple's example sends it).
/// Bounded by the caller's `Deadline` like `DeviceCheckBitsClient`; never retried here.
package struct ReceiptExchangeClient: Sendable {
    private let configuration: ReceiptExchangeConfiguration
    private let key: P256PrivateKey
    private let transport: any HTTPTransport
    private let logger: Logger

    /// Receipts are about 5 KB (base64 about 7 KB); larger ones are neither sent nor accepted.
    package static let maxReceiptBytes = 32 * 1024

    package init(
        configuration: ReceiptExchangeConfiguration,
        key: P256PrivateKey,
        transport: any HTTPTransport,
        logger: Logger
    ) {
        self.configuration = configuration
        self.key = key
        self.transport = transport
        self.logger = logger
    }

    /// Exchanges `receipt` (the stored ATTEST or RECEIPT receipt, DER).
    /// - Parameter charge: whose daily DeviceCheck budget pays for the call (one unit, spent after our JWT
    ///   is signed and the deadline checked, before Apple is called); nil for tools that pay nothing.
    /// - Throws: `ReceiptExchangeError` for every answer but `200` with base64 and `304`.
    package func exchange(
        receipt: [UInt8],
        charge: DeviceCheckCharge? = nil,
        now: Date,
        deadline: Deadline
    ) async throws(ReceiptExchangeError)
        -> ReceiptExchangeAnswer
    {
        guard !receipt.isEmpty, receipt.count <= Self.maxReceiptBytes else {
            throw ReceiptExchangeError(.receiptInvalid)
        }
        let call = AppleCall(
            teamID: configuration.teamID,
            keyID: configuration.keyID,
            key: key,
            endpoint: configuration.endpoint,
            timeout: configuration.timeout,
            transport: transport
        )
        let response: HTTPResponse
        do {
            response = try await call.send(charge: charge, now: now, deadline: deadline) { jwt, base, timeout in
                HTTPRequest(
                    method: "POST",
                    url: base + "/v1/attestationData",
                    headers: [
                        HTTPHeader("Authorization", jwt), HTTPHeader("Content-Type", "application/octet-stream"),
                    ],
                    body: Array(Bytes.base64(receipt).utf8),
                    timeout: timeout,
                    // Base64 of the largest receipt accepted, with room for line breaks.
                    maxResponseBytes: Self.maxReceiptBytes * 2
                )
            }
        } catch {
            switch error {
            case .signingFailed(let reason):
                logger.warning("receipt exchange jwt signing failed", ["reason": .string(reason)])
                throw ReceiptExchangeError(.signingFailed)
            case .deadline: throw ReceiptExchangeError(.deadlineExceeded)
            case .budgetExhausted: throw ReceiptExchangeError(.budgetExhausted)
            case .budgetStoreFailed: throw ReceiptExchangeError(.budgetUnavailable)
            case .transport: throw ReceiptExchangeError(.serviceUnavailable)
            }
        }
        // 304 and 404 mean something of their own here; every other status is read as every provider's is.
        switch (response.status, ProviderAnswer(status: response.status)) {
        case (200, _):
            // Apple's base64 may be wrapped; white space is dropped, anything else must be base64.
            let text = response.body.filter { $0 != 0x0A && $0 != 0x0D && $0 != 0x20 }
            guard Self.isCanonicalBase64(text), let bytes = Bytes.fromBase64(String(decoding: text, as: UTF8.self)),
                !bytes.isEmpty, bytes.count <= Self.maxReceiptBytes
            else {
                throw ReceiptExchangeError(.answerMalformed, status: 200)
            }
            return .unverifiedReceipt(bytes)
        case (304, _): return .notModified
        case (404, _): throw ReceiptExchangeError(.notFound, status: 404)
        case (_, .rejected): throw ReceiptExchangeError(.receiptRejected, status: 400)
        case (_, .unauthorized):
            logger.warning("receipt exchange refused our token", ["status": .int(Int64(response.status))])
            throw ReceiptExchangeError(.unauthorized, status: response.status)
        case (_, .rateLimited): throw ReceiptExchangeError(.rateLimited, status: 429)
        case (_, .unavailable): throw ReceiptExchangeError(.serviceUnavailable, status: response.status)
        case (_, .success), (_, .refused): throw ReceiptExchangeError(.refused, status: response.status)
        }
    }

    /// Standard base64 in groups of four, padding only at the end (the decoder alone accepts some
    /// strings that are not, such as `=====`).
    static func isCanonicalBase64(_ text: [UInt8]) -> Bool {
        guard !text.isEmpty, text.count % 4 == 0 else { return false }
        let padding = text.reversed().prefix(while: { $0 == UInt8(ascii: "=") }).count
        guard padding <= 2 else { return false }
        return text.dropLast(padding).allSatisfy { byte in
            (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) || (0x30...0x39).contains(byte)
                || byte == UInt8(ascii: "+") || byte == UInt8(ascii: "/")
        }
    }
}
