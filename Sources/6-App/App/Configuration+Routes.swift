internal import AttestCore
internal import Dialects
internal import Gate
internal import LambdaRuntime
internal import PlayIntegrity

extension SettingsReader {
    /// The fields a `ROUTES` entry may carry; anything else is refused so a typo cannot silently fall
    /// back to a default (`maxResponseByte`, `mdoe`).
    static let routeFields: Set<String> = [
        "method", "path", "feature", "allowance", "mode", "binding", "onUnavailable", "upstreamPath",
        "maxResponseBytes", "requireStrongIntegrity", "release", "releaseStatuses", "maxRequestBytes",
        "upstreamTimeoutMs", "dialect", "models", "maxOutputTokens", "maxInputTokens", "prices", "deviceCheckFallback",
        "maxDeviceActivity", "repeatAllowance", "onUnknownDevice", "unproven",
        "stream", "maxStreamSeconds", "maxStreamBytes", "allowFields", "template",
    ]
    /// The largest output or input cap a route may declare.
    static let maxTokenLimit: Int64 = 10_000_000
    /// The largest request body a route may accept (API Gateway's own payload limit is 10 MB).
    static let maxRequestLimit = 10 * 1024 * 1024
    /// Lambda's longest invocation.
    static let maxUpstreamTimeoutMs: Int64 = 900_000
    static let routeMethods: Set<String> = ["GET", "POST", "PUT", "PATCH", "DELETE"]
    /// The largest answer that fits Lambda's 6 MiB synchronous response with its envelope: the status and
    /// headers (64 KiB kept for them) and the body as base64 (`APIGatewayResponse.encoded` never writes it
    /// larger than that), so 4,669,440 bytes.
    static let maxResponseLimit = (6 * 1024 * 1024 - 64 * 1024) / 4 * 3
    /// Lambda's limit on a streamed response (20 MiB, the prelude of status and headers included: 64 KiB kept
    /// for it) and on a function's run (15 minutes).
    static let maxStreamBytesLimit = MeteredRoute.defaultMaxStreamBytes
    static let maxStreamSecondsLimit = 900

    /// Parses `ROUTES` (docs/api.md section 5); every route's problems are reported with its index.
    mutating func routes(_ text: String, gateMode: GateMode) -> [MeteredRoute] {
        guard let json = try? JSONValue.parse(Array(text.utf8)), let entries = json.arrayValue else {
            problem(.invalidRoutes, "ROUTES", "not a JSON list")
            return []
        }
        guard !entries.isEmpty else {
            problem(.invalidRoutes, "ROUTES", "empty list")
            return []
        }
        var routes: [MeteredRoute] = []
        var seen = Set<String>()
        for (index, entry) in entries.enumerated() {
            var errors: [String] = []
            guard let route = Self.route(entry, gateMode: gateMode, errors: &errors), errors.isEmpty else {
                problem(.invalidRoutes, "ROUTES", "route \(index): " + errors.joined(separator: ", "))
                continue
            }
            let pattern = (try? PathPattern(route.path))?.description ?? route.path
            guard seen.insert(route.method + " " + pattern).inserted else {
                problem(.invalidRoutes, "ROUTES", "route \(index): \(route.method) \(route.path) appears twice")
                continue
            }
            routes.append(route)
        }
        return routes
    }

    private static func route(_ entry: JSONValue, gateMode: GateMode, errors: inout [String]) -> MeteredRoute? {
        guard let fields = entry.objectValue else {
            errors.append("not an object")
            return nil
        }
        for key in fields.keys.sorted() where !routeFields.contains(key) { errors.append("unknown field \(key)") }

        let method = fields["method"]?.stringValue ?? ""
        if !routeMethods.contains(method) { errors.append("method must be one of GET, POST, PUT, PATCH, DELETE") }
        let path = fields["path"]?.stringValue ?? ""
        if (try? PathPattern(path)) == nil { errors.append("path must be /segments with {param}s") }
        if Configuration.reservedPaths.contains(path) { errors.append("path \(path) is served by the app itself") }
        let feature = fields["feature"]?.stringValue ?? ""
        let featureCharacters = feature.utf8.allSatisfy {
            ($0 >= 0x61 && $0 <= 0x7a) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x5f || $0 == 0x2d
        }
        if feature.isEmpty || feature.utf8.count > 64 || !featureCharacters {
            errors.append("feature must be 1-64 of a-z 0-9 _ -")
        }

        var route = MeteredRoute(method: method, path: path, feature: feature, mode: gateMode, upstreamPath: path)
        if let value = fields["mode"] {
            if let mode = value.stringValue.flatMap(GateMode.init(rawValue:)) {
                route.mode = mode
            } else {
                errors.append("mode must be off, monitor or enforce")
            }
        }
        if let value = fields["binding"] {
            if let binding = value.stringValue.flatMap(BindingMode.init(rawValue:)) {
                route.binding = binding
            } else {
                errors.append("binding must be request or challenge")
            }
        }
        if let value = fields["onUnavailable"] {
            if let policy = value.stringValue.flatMap(UnavailablePolicy.init(rawValue:)) {
                route.onUnavailable = policy
            } else {
                errors.append("onUnavailable must be allow or deny")
            }
        }
        for (name, path) in [("allowance", \MeteredRoute.allowance), ("repeatAllowance", \.repeatAllowance)] {
            guard let value = fields[name] else { continue }
            if let firstDay = count(value["firstDay"]), let laterDays = count(value["laterDays"]),
                value.objectValue?.count == 2
            {
                route[keyPath: path] = AllowancePolicy(firstDay: firstDay, laterDays: laterDays)
            } else {
                errors.append("\(name) must be {\"firstDay\":n,\"laterDays\":n} with 0...100000")
            }
        }
        if let value = fields["unproven"] {
            let allowance = value["allowance"]
            if value.objectValue?.count == 1, let allowance, let firstDay = count(allowance["firstDay"]),
                let laterDays = count(allowance["laterDays"]), allowance.objectValue?.count == 2
            {
                route.unproven = AllowancePolicy(firstDay: firstDay, laterDays: laterDays)
            } else {
                errors.append("unproven must be {\"allowance\":{\"firstDay\":n,\"laterDays\":n}} with 0...100000")
            }
        }
        if let value = fields["onUnknownDevice"] {
            if let policy = value.stringValue.flatMap(UnknownDevicePolicy.init(rawValue:)) {
                route.onUnknownDevice = policy
            } else {
                errors.append("onUnknownDevice must be repeat or first")
            }
        }
        if let value = fields["upstreamPath"] {
            if let upstreamPath = value.stringValue, Self.isUpstreamPath(upstreamPath) {
                route.upstreamPath = upstreamPath
            } else {
                errors.append(
                    "upstreamPath must be a path starting with / (no {param}; a query of A-Z a-z 0-9 -._~=&%)"
                )
            }
        } else if path.contains("{") {
            errors.append("upstreamPath is required for a path with {param}s")
        }
        if let value = fields["maxResponseBytes"] {
            if let bytes = value.intValue, (1...Int64(maxResponseLimit)).contains(bytes) {
                route.maxResponseBytes = Int(bytes)
            } else {
                errors.append("maxResponseBytes must be 1...\(maxResponseLimit)")
            }
        }
        if let value = fields["release"] {
            if let policy = value.stringValue.flatMap(ReleasePolicy.init(rawValue:)) {
                route.release = policy
            } else {
                errors.append("release must be unbilled or seed")
            }
        }
        if let value = fields["releaseStatuses"] {
            let statuses = value.arrayValue?.compactMap { $0.intValue }.filter { (400...599).contains($0) } ?? []
            if let list = value.arrayValue, statuses.count == list.count, list.count <= 20 {
                route.releaseStatuses = StatusSet(statuses.map { Int($0) })
            } else {
                errors.append("releaseStatuses must be a list of at most 20 statuses in 400...599")
            }
        }
        if let value = fields["maxRequestBytes"] {
            if let bytes = value.intValue, (1...Int64(maxRequestLimit)).contains(bytes) {
                route.maxRequestBytes = Int(bytes)
            } else {
                errors.append("maxRequestBytes must be 1...\(maxRequestLimit)")
            }
        }
        if let value = fields["upstreamTimeoutMs"] {
            if let millis = value.intValue, (100...maxUpstreamTimeoutMs).contains(millis) {
                route.upstreamTimeout = .milliseconds(millis)
            } else {
                errors.append("upstreamTimeoutMs must be 100...\(maxUpstreamTimeoutMs)")
            }
        }
        if let value = fields["stream"] {
            if let stream = value.boolValue {
                route.stream = stream
            } else {
                errors.append("stream must be true or false")
            }
        }
        dialectFields(fields, into: &route, errors: &errors)
        if let value = fields["maxStreamSeconds"] {
            if let seconds = value.intValue, (1...Int64(maxStreamSecondsLimit)).contains(seconds) {
                route.maxStreamSeconds = Int(seconds)
            } else {
                errors.append("maxStreamSeconds must be 1...\(maxStreamSecondsLimit)")
            }
        }
        if let value = fields["maxStreamBytes"] {
            if let bytes = value.intValue, (1...Int64(maxStreamBytesLimit)).contains(bytes) {
                route.maxStreamBytes = Int(bytes)
            } else {
                errors.append("maxStreamBytes must be 1...\(maxStreamBytesLimit)")
            }
        }
        if !route.stream, fields["maxStreamSeconds"] != nil || fields["maxStreamBytes"] != nil {
            errors.append("maxStreamSeconds and maxStreamBytes need stream: true")
        }
        if let value = fields["requireStrongIntegrity"] {
            if let strong = value.boolValue {
                route.requireStrongIntegrity = strong
            } else {
                errors.append("requireStrongIntegrity must be true or false")
            }
        }
        if let value = fields["deviceCheckFallback"] {
            if let fallback = value.boolValue {
                route.deviceCheckFallback = fallback
            } else {
                errors.append("deviceCheckFallback must be true or false")
            }
        }
        if let value = fields["maxDeviceActivity"] {
            // UNEVALUATED is no maximum: it always passes, so a route cannot ask for it.
            if let text = value.stringValue, let level = DeviceActivityLevel(verdict: text), level != .unevaluated {
                route.maxDeviceActivity = level
            } else {
                errors.append("maxDeviceActivity must be LEVEL_1, LEVEL_2, LEVEL_3 or LEVEL_4")
            }
        }
        return route
    }

    /// `dialect`, `models`, `maxOutputTokens`, `maxInputTokens`, `prices` (a bounded worst case, docs/dialects.md).
    private static func dialectFields(
        _ fields: [String: JSONValue],
        into route: inout MeteredRoute,
        errors: inout [String]
    ) {
        if let value = fields["dialect"] {
            if let dialect = value.stringValue.flatMap(Dialect.init(rawValue:)) {
                route.dialect = dialect
            } else {
                let names = Dialect.allCases.map(\.rawValue).joined(separator: ", ")
                errors.append("dialect must be one of \(names)")
            }
        }
        if let value = fields["allowFields"] {
            let names = value.arrayValue?.compactMap(\.stringValue).filter(Self.isFieldName) ?? []
            if let list = value.arrayValue, names.count == list.count, list.count <= 32 {
                route.allowFields = Set(names)
            } else {
                errors.append("allowFields must be a list of at most 32 field names (1-64 of A-Z a-z 0-9 _ .)")
            }
        }
        if let value = fields["models"] {
            let names = value.arrayValue?.compactMap(\.stringValue).filter { !$0.isEmpty && $0.utf8.count <= 128 } ?? []
            if let list = value.arrayValue, !list.isEmpty, names.count == list.count, list.count <= 100 {
                route.models = Set(names)
            } else {
                errors.append("models must be a list of 1-100 model names")
            }
        }
        for (name, path) in [("maxOutputTokens", \MeteredRoute.maxOutputTokens), ("maxInputTokens", \.maxInputTokens)] {
            guard let value = fields[name] else { continue }
            if let tokens = value.intValue, (1...maxTokenLimit).contains(tokens) {
                route[keyPath: path] = Int(tokens)
            } else {
                errors.append("\(name) must be 1...\(maxTokenLimit)")
            }
        }
        if let value = fields["prices"] {
            var prices: [String: ModelPrice] = [:]
            var valid = value.objectValue != nil && (value.objectValue?.count ?? 0) <= 100
            for (model, entry) in value.objectValue ?? [:] {
                guard let price = ModelPrice(json: entry) else {
                    valid = false
                    continue
                }
                prices[model] = price
            }
            if valid {
                route.prices = prices
            } else {
                errors.append(
                    "prices must be {\"<model>\":{\"inputPerMTok\":USD,\"outputPerMTok\":USD}} and optionally"
                        + " cachedInputPerMTok, cacheWritePerMTok, cacheWrite1hPerMTok, audioInputPerMTok,"
                        + " audioOutputPerMTok, imageOutputPerMTok (USD, at most 6 decimals)"
                )
            }
        }
        if let problem = route.dialect.endpointProblem(route.upstreamPath) {
            errors.append(problem)
        } else if route.dialect == .geminiGenerate {
            // Gemini names the model in the path: one outside `models` could only be refused on every call.
            if let method = GeminiMethod(upstreamPath: route.upstreamPath) {
                if let models = route.models, !models.contains(method.model) {
                    errors.append("upstreamPath names model \(method.model), which is not in models")
                }
                if route.stream, !method.streams {
                    // Gemini streams only from streamGenerateContent: the route would never stream.
                    errors.append(
                        "stream: true needs upstreamPath …:streamGenerateContent?alt=sse with gemini-generate"
                    )
                }
            }
        }
        if let value = fields["template"] {
            do {
                let template = try RequestTemplate(json: value)
                // The rendered request must pass its dialect's closed world: checked once here, with sample values.
                if route.dialect.isKnown, route.maxOutputTokens != nil {
                    let policy = DialectPolicy(
                        models: route.models,
                        maxOutputTokens: route.maxOutputTokens ?? 1,
                        acceptsMedia: route.maxInputTokens != nil,
                        allowFields: route.allowFields
                    )
                    if case .failure(let refusal) = route.dialect.prepare(
                        body: template.sample(),
                        policy: policy,
                        upstreamPath: route.upstreamPath
                    ) {
                        errors.append("template body is refused by its dialect: \(refusal.description.prefix(200))")
                    }
                }
                route.template = template
            } catch {
                errors.append(error.message)
            }
        }
        if route.dialect.isKnown {
            if route.maxOutputTokens == nil {
                errors.append("maxOutputTokens is required with dialect \(route.dialect.rawValue)")
            }
        } else {
            for name in ["models", "maxOutputTokens", "maxInputTokens", "prices"] where fields[name] != nil {
                errors.append("\(name) needs a known dialect (the opaque dialect reads no body)")
            }
        }
        if let models = route.models, !route.prices.isEmpty {
            for model in models.sorted() where route.prices[model] == nil {
                errors.append("prices has no entry for \(model)")
            }
        }
    }

    /// A path, and optionally a query the provider needs (Gemini's `:streamGenerateContent?alt=sse`) made of
    /// unreserved characters, `=`, `&` and `%`: nothing that could end the query or start a fragment.
    private static func isUpstreamPath(_ text: String) -> Bool {
        guard text.hasPrefix("/"), text.utf8.count <= 512, !text.contains("#"), !text.contains("{") else {
            return false
        }
        let parts = text.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2 else { return true }
        return !parts[1].isEmpty
            && parts[1].utf8.allSatisfy { byte in
                (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5a) || (byte >= 0x61 && byte <= 0x7a)
                    || "-._~=&%".utf8.contains(byte)
            }
    }

    /// A request field name as the dialects spell them (`prediction`, `service_tier`, `generationConfig`).
    private static func isFieldName(_ text: String) -> Bool {
        (1...64).contains(text.utf8.count)
            && text.utf8.allSatisfy { byte in
                (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5a) || (byte >= 0x61 && byte <= 0x7a)
                    || byte == 0x5f || byte == 0x2e
            }
    }

    private static func count(_ value: JSONValue?) -> Int? {
        guard let number = value?.intValue, (0...100_000).contains(number) else { return nil }
        return Int(number)
    }
}
