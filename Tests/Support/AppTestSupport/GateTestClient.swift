internal import App
package import AttestCore
internal import Crypto
package import FoundationEssentials
internal import LambdaRuntime

/// Sends API Gateway HTTP API 2.0 events through a `GateTestApp`'s real handler.
package struct GateTestClient: Sendable {
    package let app: GateTestApp

    /// Sends one request as API Gateway would deliver it.
    /// - Parameters:
    ///   - headers: request headers (names as the client wrote them; API Gateway lower-cases them).
    ///   - claims: the JWT authorizer's claims (a signed-in caller).
    ///   - timeLeft: the invocation's deadline, from the app clock's now.
    package func execute(
        method: String = "POST",
        _ path: String,
        headers: [String: String] = [:],
        body: [UInt8] = [],
        claims: [String: String]? = nil,
        timeLeft: TimeInterval = 15
    ) async throws -> GateTestResponse {
        var lowered: [String: JSONValue] = [:]
        for (name, value) in headers { lowered[name.lowercased()] = .string(value) }
        let requestID = Bytes.hex(SecureRandom().bytes(8))
        var context: [String: JSONValue] = [
            "http": .object([
                "method": .string(method), "path": .string(path), "protocol": .string("HTTP/1.1"),
                "sourceIp": .string("127.0.0.1"), "userAgent": .string("attestgate-tests"),
            ]),
            "requestId": .string(requestID),
            "routeKey": .string("$default"),
            "stage": .string("$default"),
        ]
        if let claims {
            context["authorizer"] = .object(["jwt": .object(["claims": .object(claims.mapValues(JSONValue.string))])])
        }
        let event = JSONValue.object([
            "version": .string("2.0"),
            "routeKey": .string("$default"),
            "rawPath": .string(path),
            "rawQueryString": .string(""),
            "headers": .object(lowered),
            "requestContext": .object(context),
            "body": .string(Bytes.base64(body)),
            "isBase64Encoded": .bool(true),
        ])
        let invocation = InvocationContext(
            requestID: requestID,
            deadline: app.clock.now().addingTimeInterval(timeLeft),
            invokedFunctionARN: "arn:aws:lambda:us-east-1:000000000000:function:attestgate-tests",
            traceID: nil,
            logger: Logger(level: .debug, sink: app.logs)
        )
        let output = try await app.handler.handle(event.serializedBytes, context: invocation)
        return try GateTestResponse(output: output)
    }
}

/// The handler's 2.0 response, decoded.
package struct GateTestResponse: Sendable {
    package let status: Int
    /// Header values by lower-cased name.
    package let headers: [String: String]
    package let body: [UInt8]

    init(output: [UInt8]) throws {
        let document = try JSONValue.parse(output)
        guard let status = document["statusCode"]?.intValue else { throw GateTestError("no statusCode") }
        self.status = Int(status)
        var headers: [String: String] = [:]
        if case .object(let fields)? = document["headers"] {
            for (name, value) in fields { headers[name.lowercased()] = value.stringValue }
        }
        self.headers = headers
        let text = document["body"]?.stringValue ?? ""
        if document["isBase64Encoded"] == .bool(true) {
            guard let bytes = Bytes.fromBase64(text) else { throw GateTestError("body is not base64") }
            body = bytes
        } else {
            body = Array(text.utf8)
        }
    }

    package func header(_ name: String) -> String? { headers[name.lowercased()] }

    /// The body as JSON (nil when it is not JSON).
    package var json: JSONValue? { try? JSONValue.parse(body) }

    /// `error` of a `{"error":"<code>"}` body.
    package var error: String? { json?["error"]?.stringValue }
}
