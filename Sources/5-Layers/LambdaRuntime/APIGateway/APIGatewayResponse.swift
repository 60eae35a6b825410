package import AttestCore

/// A response to API Gateway; `encoded(for:)` writes the shape the event's format expects.
package struct APIGatewayResponse: Sendable, Hashable {
    package var status: Int
    package var headers: HeaderFields
    /// Sent as `cookies` in 2.0 and as `Set-Cookie` headers in 1.0/REST.
    package var cookies: [String]
    package var body: [UInt8]
    /// A body streamed instead of `body` (Lambda response streaming; status, headers and cookies go
    /// in the HTTP integration prelude).
    package var stream: ResponseStreamBody?

    package init(
        status: Int,
        headers: HeaderFields = HeaderFields(),
        cookies: [String] = [],
        body: [UInt8] = [],
        stream: ResponseStreamBody? = nil
    ) {
        self.status = status
        self.headers = headers
        self.cookies = cookies
        self.body = body
        self.stream = stream
    }

    /// The streamed response Lambda turns into this status, these headers and the streamed body.
    package func streamed(_ stream: ResponseStreamBody) -> StreamedResponse {
        let pairs = headers.names.map { ($0, headers[$0] ?? "") }
        return .http(status: status, headers: pairs, cookies: cookies, sendBy: stream.sendBy, body: stream.produce)
    }

    /// The refusal's status and `{"error":"<code>"}` with `Content-Type: application/json`: the only error
    /// shape clients see.
    package static func refused(_ refusal: Refusal, headers: HeaderFields = HeaderFields()) -> Self {
        var all = headers
        all.set("Content-Type", "application/json")
        return Self(status: refusal.status, headers: all, body: refusal.body)
    }

    /// The bytes `body` takes as a JSON string's content: a quote or backslash doubles, a control byte is
    /// `\n`-style (2) or `\u00XX` (6).
    static func escapedLength(_ body: [UInt8]) -> Int {
        var length = body.count
        for byte in body where byte < 0x20 || byte == 0x22 || byte == 0x5C {
            length += [0x08, 0x09, 0x0A, 0x0C, 0x0D, 0x22, 0x5C].contains(byte) ? 1 : 5
        }
        return length
    }

    /// A JSON body with `Content-Type: application/json`.
    package static func json(_ status: Int, _ value: JSONValue, headers: HeaderFields = HeaderFields()) -> Self {
        var all = headers
        all.set("Content-Type", "application/json")
        return Self(status: status, headers: all, body: value.serializedBytes)
    }

    /// The response document for `format`. The body travels as text when it is valid UTF-8 and its JSON
    /// escaping is no larger than base64, and as base64 (`isBase64Encoded: true`) otherwise: a body is never
    /// written larger than 4/3 of its bytes, which is what the routes' `maxResponseBytes` limit assumes.
    package func encoded(for format: APIGatewayRequest.Format) -> [UInt8] {
        var document: [String: JSONValue] = ["statusCode": .int(Int64(status))]
        if Self.escapedLength(body) <= (body.count + 2) / 3 * 4, let text = String(validating: body, as: UTF8.self) {
            document["body"] = .string(text)
            document["isBase64Encoded"] = .bool(false)
        } else {
            document["body"] = .string(Bytes.base64(body))
            document["isBase64Encoded"] = .bool(true)
        }
        switch format {
        case .httpV2:
            // 2.0 takes one value per name; duplicates are comma-joined, cookies go in their own list.
            var single: [String: JSONValue] = [:]
            for name in headers.names { single[name] = .string(headers[name] ?? "") }
            document["headers"] = .object(single)
            document["cookies"] = .array(cookies.map(JSONValue.string))
        case .httpV1, .rest:
            var multi: [String: JSONValue] = [:]
            var single: [String: JSONValue] = [:]
            for name in headers.names {
                let values = headers.values(name)
                multi[name] = .array(values.map(JSONValue.string))
                single[name] = .string(values.last ?? "")
            }
            if !cookies.isEmpty {
                multi["Set-Cookie"] = .array(cookies.map(JSONValue.string))
            }
            document["headers"] = .object(single)
            document["multiValueHeaders"] = .object(multi)
        }
        return JSONValue.object(document).serializedBytes
    }
}

/// The producer of a streamed body; equal only to itself (responses stay `Hashable`).
package final class ResponseStreamBody: Sendable, Hashable {
    package let produce: @Sendable (any ResponseStreamWriter) async -> StreamCompletion
    /// By when the body must have been taken (`StreamedResponse.sendBy`).
    package let sendBy: ContinuousClock.Instant?

    package init(
        sendBy: ContinuousClock.Instant? = nil,
        _ produce: @escaping @Sendable (any ResponseStreamWriter) async -> StreamCompletion
    ) {
        self.sendBy = sendBy
        self.produce = produce
    }

    package static func == (lhs: ResponseStreamBody, rhs: ResponseStreamBody) -> Bool { lhs === rhs }
    package func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}
