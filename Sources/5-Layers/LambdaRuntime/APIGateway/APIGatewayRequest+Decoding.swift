internal import AttestCore

extension APIGatewayRequest {
    /// Reads an HTTP API 2.0, HTTP API 1.0 or REST proxy event.
    ///
    /// Shapes: https://docs.aws.amazon.com/apigateway/latest/developerguide/http-api-develop-integrations-lambda.html
    /// and the REST "Input format of a Lambda function for proxy integration".
    /// - Throws: `APIGatewayEventError` for anything else; the caller answers 400 `invalid_request`.
    package init(event: [UInt8]) throws(APIGatewayEventError) {
        let json: JSONValue
        do {
            json = try JSONValue.parse(event)
        } catch {
            throw APIGatewayEventError(.notJSON)
        }
        guard case .object = json else { throw APIGatewayEventError(.notJSON, detail: "not an object") }
        switch json["version"]?.stringValue {
        case "2.0":
            try self.init(v2: json)
        case "1.0":
            try self.init(v1: json, format: .httpV1)
        case nil where json["httpMethod"] != nil && json["resource"] != nil:
            try self.init(v1: json, format: .rest)
        default:
            throw APIGatewayEventError(.notAPIGatewayEvent)
        }
    }

    private init(v2 json: JSONValue) throws(APIGatewayEventError) {
        let context = try Self.object(json, "requestContext", required: true)
        let http = try Self.object(context, "http", required: true)
        guard let method = http["method"]?.stringValue, let rawPath = json["rawPath"]?.stringValue else {
            throw APIGatewayEventError(.notAPIGatewayEvent, detail: "2.0 event without method or rawPath")
        }
        var headers = HeaderFields()
        for (name, value) in try Self.stringMap(json, "headers") { headers.append(name, value) }
        let stage = try Self.string(context, "stage")
        self.init(
            format: .httpV2,
            method: method.uppercased(),
            rawPath: rawPath,
            routePaths: Self.routePaths(called: rawPath, stripped: Self.strip(stage: stage, from: rawPath)),
            rawQueryString: try Self.string(json, "rawQueryString") ?? "",
            headers: headers,
            cookies: try Self.stringArray(json, "cookies"),
            body: try Self.body(json),
            requestID: try Self.string(context, "requestId"),
            sourceIP: try Self.string(http, "sourceIp"),
            jwtClaims: try Self.claims(context["authorizer"]?["jwt"]?["claims"])
        )
        // Function URLs send 2.0 events from `<url-id>.lambda-url.<region>.on.aws`.
        let domain = (try Self.string(context, "domainName") ?? "").lowercased()
        // A byte search: the generic `StringProtocol.contains` searched by `Character` and instantiated
        // metadata at run time, ~25 µs of every event's parse.
        viaFunctionURL =
            domain.hasSuffix(".on.aws")
            && Array(domain.utf8).withUnsafeBufferPointer { Bytes.contains($0, Self.functionURLLabel) }
    }

    private static let functionURLLabel = Array(".lambda-url.".utf8)

    private init(v1 json: JSONValue, format: Format) throws(APIGatewayEventError) {
        guard let method = json["httpMethod"]?.stringValue, let path = json["path"]?.stringValue else {
            throw APIGatewayEventError(.notAPIGatewayEvent, detail: "1.0/REST event without httpMethod or path")
        }
        let context = try Self.object(json, "requestContext", required: false)
        var headers = HeaderFields()
        let multi = try Self.stringArrayMap(json, "multiValueHeaders")
        if multi.isEmpty {
            for (name, value) in try Self.stringMap(json, "headers") { headers.append(name, value) }
        } else {
            for (name, values) in multi { for value in values { headers.append(name, value) } }
        }
        let cookies = headers.values("cookie").flatMap { $0.split(separator: ";") }
            .map { $0.trimmingPrefix(" ") }.filter { !$0.isEmpty }.map(String.init)
        let authorizer = context["authorizer"]
        // REST: `path` has the stage removed and `requestContext.path` is what the client called. HTTP API
        // 1.0: both keep a named stage's segment.
        let called = try Self.string(context, "path") ?? path
        let stripped = format == .rest ? path : Self.strip(stage: try Self.string(context, "stage"), from: path)
        self.init(
            format: format,
            method: method.uppercased(),
            rawPath: called,
            routePaths: Self.routePaths(called: called, stripped: stripped),
            rawQueryString: "",
            headers: headers,
            cookies: cookies,
            body: try Self.body(json),
            requestID: try Self.string(context, "requestId"),
            sourceIP: try Self.string(context["identity"] ?? .null, "sourceIp"),
            jwtClaims: try Self.claims(authorizer?["jwt"]?["claims"] ?? authorizer?["claims"])
        )
    }

    /// `path` without the leading `/{stage}` segment of a named stage (`$default` has none in the path).
    private static func strip(stage: String?, from path: String) -> String {
        guard let stage, !stage.isEmpty, stage != "$default" else { return path }
        let prefix = "/" + stage
        if path == prefix { return "/" }
        guard path.hasPrefix(prefix + "/") else { return path }
        return String(path.dropFirst(prefix.count))
    }

    private static func routePaths(called: String, stripped: String) -> [String] {
        stripped == called ? [called] : [stripped, called]
    }

    private static func body(_ json: JSONValue) throws(APIGatewayEventError) -> [UInt8] {
        guard let text = try string(json, "body") else { return [] }
        let encoded: Bool
        switch json["isBase64Encoded"] {
        case nil, .null: encoded = false
        case .bool(let value): encoded = value
        default: throw APIGatewayEventError(.malformedField, detail: "isBase64Encoded")
        }
        guard encoded else { return Array(text.utf8) }
        guard let bytes = Bytes.fromBase64(text) else { throw APIGatewayEventError(.invalidBase64Body) }
        return bytes
    }

    private static func claims(_ value: JSONValue?) throws(APIGatewayEventError) -> [String: String]? {
        guard let value, value != .null else { return nil }
        guard let members = value.objectValue else { throw APIGatewayEventError(.malformedField, detail: "claims") }
        var claims: [String: String] = [:]
        for (name, member) in members {
            claims[name] = member.stringValue ?? member.serialized
        }
        return claims
    }

    // MARK: Typed field access: absent and null are "no value", a wrong type is malformed.

    private static func object(
        _ json: JSONValue,
        _ key: String,
        required: Bool
    ) throws(APIGatewayEventError)
        -> JSONValue
    {
        switch json[key] {
        case .object(let members): return .object(members)
        case nil, .null:
            if required { throw APIGatewayEventError(.notAPIGatewayEvent, detail: "\(key) missing") }
            return .object([:])
        default: throw APIGatewayEventError(.malformedField, detail: key)
        }
    }

    private static func string(_ json: JSONValue, _ key: String) throws(APIGatewayEventError) -> String? {
        switch json[key] {
        case .string(let value): return value
        case nil, .null: return nil
        default: throw APIGatewayEventError(.malformedField, detail: key)
        }
    }

    private static func stringArray(_ json: JSONValue, _ key: String) throws(APIGatewayEventError) -> [String] {
        switch json[key] {
        case nil, .null: return []
        case .array(let values):
            var out: [String] = []
            for value in values {
                guard let text = value.stringValue else { throw APIGatewayEventError(.malformedField, detail: key) }
                out.append(text)
            }
            return out
        default: throw APIGatewayEventError(.malformedField, detail: key)
        }
    }

    private static func stringMap(
        _ json: JSONValue,
        _ key: String
    ) throws(APIGatewayEventError)
        -> [(String, String)]
    {
        switch json[key] {
        case nil, .null: return []
        case .object(let members):
            var out: [(String, String)] = []
            for name in members.keys.sorted() {
                guard let text = members[name]?.stringValue else {
                    throw APIGatewayEventError(.malformedField, detail: key)
                }
                out.append((name, text))
            }
            return out
        default: throw APIGatewayEventError(.malformedField, detail: key)
        }
    }

    private static func stringArrayMap(
        _ json: JSONValue,
        _ key: String
    ) throws(APIGatewayEventError)
        -> [(String, [String])]
    {
        switch json[key] {
        case nil, .null: return []
        case .object(let members):
            var out: [(String, [String])] = []
            for name in members.keys.sorted() {
                out.append((name, try stringArray(.object(members), name)))
            }
            return out
        default: throw APIGatewayEventError(.malformedField, detail: key)
        }
    }
}
