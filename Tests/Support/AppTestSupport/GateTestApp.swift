internal import AWSJSON
package import App
package import AttestCore
internal import Crypto
package import DynamoDB
internal import FoundationEssentials
internal import Glibc
internal import HTTPClient
internal import LambdaRuntime
package import SimulatedDevice
package import TestSupport

/// The real API handler (`Application.makeHandler`) in process, for flows through the router against
/// moto (house style: Hummingbird's `app.test(.router)`).
///
/// Each app gets a fresh table on the moto of `DYNAMODB_ENDPOINT`, a synthetic Apple CA whose root PEM is
/// `APP_ATTEST_TRUST_ROOT`, a loopback fake upstream and the settings of a development environment. Events
/// are API Gateway HTTP API 2.0 payloads sent through `APIGatewayLambdaHandler.handle(_:context:)` with an
/// invocation deadline, exactly as `bootstrap` hands them over.
///
/// ```swift
/// let app = try await GateTestApp(routes: GateTestApp.route(mode: "enforce"))
/// try await app.test { client in
///     let device = try client.iosDevice()
///     #expect(try await client.register(device).binding == "bound")
///     let response = try await client.metered(device, path: "/v1/generate", body: Array("{}".utf8))
///     #expect(response.status == 200)
/// }
/// ```
package final class GateTestApp: Sendable {
    package static let teamID = "TEAMID1234"
    package static let bundleID = "com.example.attestgate"
    package static let upstreamKey = "upstream-test-key"

    package let handler: Application.Handler
    package let configuration: Configuration
    package let environment: Environment
    package let clock: TestClock
    /// The app's transport: every DynamoDB request is counted here and can be resent.
    package let transport: DynamoTrafficTransport
    /// Every log line of the invocations (decision lines included).
    package let logs: CapturingLogSink
    /// The CA the app trusts (`APP_ATTEST_TRUST_ROOT`); devices made by `iosDevice()` chain to it.
    package let authority: SimulatedAppleCA
    /// The fake paid AI API.
    package let upstream: LoopbackHTTPServer
    /// The app's table, and a client of moto to read it.
    package let table: Table
    package let dynamo: DynamoDBClient
    private let folder: String

    /// Builds the app.
    /// - Parameters:
    ///   - routes: the `ROUTES` setting (see `route(...)`).
    ///   - settings: more settings or overrides (nil removes one), e.g. Play Integrity's (`playSettings`).
    ///   - resending: DynamoDB operations sent twice from the start (see `DynamoTrafficTransport`).
    ///   - clock: the app's clock (real time by default; advance it to expire challenges).
    /// - Throws: when `DYNAMODB_ENDPOINT` is unset, moto cannot create the table, or the app refuses to start.
    package init(
        routes: String = GateTestApp.route(mode: "enforce"),
        settings: [String: String?] = [:],
        resending: Set<String> = [],
        clock: TestClock = TestClock()
    ) async throws {
        guard let endpoint = LocalDynamoDB.endpoint else {
            throw GateTestError("DYNAMODB_ENDPOINT is unset: run through `make test` (local-harness/with_moto.sh)")
        }
        var template = Array("/tmp/attestgate-app-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw GateTestError("mkdtemp failed") }
        folder = String(cString: made)
        self.clock = clock
        authority = try SimulatedAppleCA(now: clock.now())
        try Self.write(Array(authority.rootPEM.utf8), to: folder + "/trust-root.pem")
        try Self.write(Array(Self.upstreamKey.utf8), to: folder + "/upstream-key")

        upstream = try LoopbackHTTPServer { request in
            guard request.header("authorization") == "Bearer \(GateTestApp.upstreamKey)" else {
                return .respond(status: 401, body: Array(#"{"error":"bad key"}"#.utf8))
            }
            let body = JSONValue.object([
                "upstream": .string("fake"), "path": .string(request.path), "bytes": .int(Int64(request.body.count)),
            ])
            return .respond(status: 200, headers: [("Content-Type", "application/json")], body: body.serializedBytes)
        }

        var values: [String: String] = [
            "ATTESTGATE_ENV": "development",
            "TABLE_NAME": "flows-\(Bytes.hex(SecureRandom().bytes(6)))",
            "DYNAMODB_ENDPOINT": endpoint,
            "AWS_REGION": "us-east-1",
            "AWS_ACCESS_KEY_ID": "testing",
            "AWS_SECRET_ACCESS_KEY": "testing",
            "APPLE_TEAM_ID": Self.teamID,
            "APPLE_BUNDLE_IDS": Self.bundleID,
            "APP_ATTEST_ENVIRONMENT": "development",
            "APP_ATTEST_TRUST_ROOT": folder + "/trust-root.pem",
            "UPSTREAM_URL": upstream.baseURL,
            "UPSTREAM_API_KEY_FILE": folder + "/upstream-key",
            "ROUTES": routes,
            "LOG_LEVEL": "debug",
        ]
        for (name, value) in settings { values[name] = value }
        environment = Environment(values)

        let aws = try AWSEnvironment(values)
        dynamo = DynamoDBClient(
            configuration: DynamoDBClient.configuration(aws),
            transport: CurlTransport(),
            random: SecureRandom()
        )
        table = Table(name: values["TABLE_NAME"]!)
        _ = try await dynamo.createTable(table, deadline: .after(.seconds(20)))

        transport = DynamoTrafficTransport(resending: resending)
        logs = CapturingLogSink()
        (handler, configuration) = try await Application.makeHandler(
            environment: environment,
            transport: transport,
            clock: clock
        )
    }

    /// A `ROUTES` value with one route (see `routeEntry` for the fields).
    package static func route(
        method: String = "POST",
        path: String = "/v1/generate",
        feature: String = "generation",
        mode: String,
        binding: String = "request",
        onUnavailable: String = "allow",
        upstreamPath: String = "/generate",
        firstDay: Int = 100,
        laterDays: Int = 100
    ) -> String {
        routes([
            routeEntry(
                method: method,
                path: path,
                feature: feature,
                mode: mode,
                binding: binding,
                onUnavailable: onUnavailable,
                upstreamPath: upstreamPath,
                firstDay: firstDay,
                laterDays: laterDays
            )
        ])
    }

    /// One `ROUTES` entry (docs/api.md section 5); join several with `routes(_:)`.
    package static func routeEntry(
        method: String = "POST",
        path: String = "/v1/generate",
        feature: String = "generation",
        mode: String,
        binding: String = "request",
        onUnavailable: String = "allow",
        upstreamPath: String = "/generate",
        firstDay: Int = 100,
        laterDays: Int = 100
    ) -> JSONValue {
        .object([
            "method": .string(method), "path": .string(path), "feature": .string(feature), "mode": .string(mode),
            "binding": .string(binding), "onUnavailable": .string(onUnavailable),
            "upstreamPath": .string(upstreamPath),
            "allowance": .object(["firstDay": .int(Int64(firstDay)), "laterDays": .int(Int64(laterDays))]),
        ])
    }

    /// Several routes as one `ROUTES` value.
    package static func routes(_ entries: [JSONValue]) -> String {
        String(decoding: JSONValue.array(entries).serializedBytes, as: UTF8.self)
    }

    /// Runs `body` with a client of this app, then stops the app (upstream, temporary files).
    package func test<T: Sendable>(_ body: (GateTestClient) async throws -> T) async throws -> T {
        defer { stop() }
        return try await body(GateTestClient(app: self))
    }

    /// Stops the fake upstream and removes the temporary files; `test` calls it.
    package func stop() {
        upstream.stop()
        for name in ["trust-root.pem", "upstream-key"] { unlink(folder + "/" + name) }
        rmdir(folder)
        exportDecisions()
    }

    /// Appends this app's decision lines to `$ATTESTGATE_DECISION_LINES` when set: `make test` replays
    /// the real lines of every flow through the alarms of infra/ (infra/tests/check_metrics.py).
    private func exportDecisions() {
        guard let path = getenv("ATTESTGATE_DECISION_LINES").map({ String(cString: $0) }), !path.isEmpty else { return }
        let descriptor = Glibc.open(path, O_WRONLY | O_APPEND | O_CREAT, 0o644)
        guard descriptor >= 0 else { return }
        defer { Glibc.close(descriptor) }
        for line in decisions {
            // One write per line with O_APPEND: lines from parallel tests never interleave.
            let bytes = line.serializedBytes + [0x0a]
            _ = bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
        }
    }

    /// The decision lines (`"logger":"attestgate.decision"`) written so far, oldest first.
    package var decisions: [JSONValue] {
        logs.objects.filter { $0["logger"]?.stringValue == "attestgate.decision" }
    }

    /// A row of the table, read strongly consistent.
    package func row(_ pk: String, _ sk: String) async throws -> Item? {
        try await dynamo.getItem(table, key: ["PK": .s(pk), "SK": .s(sk)], deadline: .after(.seconds(10)))
    }

    static func write(_ bytes: [UInt8], to path: String) throws {
        guard let file = fopen(path, "wb") else { throw GateTestError("fopen \(path)") }
        defer { fclose(file) }
        guard fwrite(bytes, 1, bytes.count, file) == bytes.count else { throw GateTestError("fwrite \(path)") }
    }
}

/// A test set-up problem (not a product failure).
package struct GateTestError: Error, CustomStringConvertible {
    package let description: String
    package init(_ description: String) { self.description = description }
}
