import AttestCore
import Glibc
import HTTPClient
import TestSupport
import Testing

/// The Python local harness (`local-harness/lambda_harness.py`) running the real `bootstrap`.
final class LocalHarness: Sendable {
    static let packageRoot: String = {
        var parts = "\(#filePath)".split(separator: "/", omittingEmptySubsequences: false)
        parts.removeLast(3)  // Tests/BootstrapTests/LocalHarness.swift
        return parts.joined(separator: "/")
    }()

    /// `BOOTSTRAP_PATH` when set (make test points it at the release build), else the debug build.
    static var bootstrapPath: String {
        if let path = getenv("BOOTSTRAP_PATH") { return String(cString: path) }
        return packageRoot + "/.build/debug/bootstrap"
    }

    let process: ChildProcess
    let http: String
    let control: String
    /// The Function URL front: events from `<id>.lambda-url.<region>.on.aws`, as streamed routes get them.
    let functionURL: String
    let transport = CurlTransport()

    /// Starts the harness with `instances` bootstrap instances and `environment` for them.
    /// - Parameters:
    ///   - signedInInstances: the instances of a second pool that serves only signed-in calls (0: none).
    ///   - throttle: each pool's instances are its reserved concurrency; a call past it is refused (500).
    init(
        environment: [String: String],
        deadlineMs: Int = 3000,
        instances: Int = 1,
        signedInInstances: Int = 0,
        throttle: Bool = false
    ) async throws {
        let bootstrap = Self.bootstrapPath
        try #require(access(bootstrap, X_OK) == 0, "no bootstrap at \(bootstrap): run `swift build` first")
        var arguments = [
            "python3", Self.packageRoot + "/local-harness/lambda_harness.py", "--bootstrap", bootstrap, "--quiet",
            "--deadline-ms", String(deadlineMs), "--instances", String(instances),
            "--signed-in-instances", String(signedInInstances),
        ]
        if throttle { arguments.append("--throttle") }
        for (key, value) in environment.sorted(by: { $0.key < $1.key }) { arguments += ["--env", "\(key)=\(value)"] }
        let path = getenv("PATH").map { String(cString: $0) } ?? "/usr/bin:/bin"
        process = try ChildProcess(arguments, environment: ["PATH": path, "LANG": "C.UTF-8"])
        // Reading waits until Python is up: `nextLine` does it off the cooperative pool.
        let first = await process.nextLine()
        let line = try #require(first, "the harness did not start")
        let ready = try JSONValue.parse(Array(line.utf8))
        http = try #require(ready["http"]?.stringValue)
        control = try #require(ready["control"]?.stringValue)
        functionURL = try #require(ready["functionURL"]?.stringValue)
    }

    deinit { process.terminate() }

    /// A real HTTP request through the front (turned into an HTTP API 2.0 event).
    func request(
        _ method: String,
        _ path: String,
        headers: [HTTPHeader] = [],
        body: String = ""
    ) async throws
        -> HTTPResponse
    {
        try await transport.send(
            HTTPRequest(
                method: method,
                url: http + path,
                headers: headers,
                body: Array(body.utf8),
                timeout: .seconds(30)
            )
        )
    }

    /// A raw event through the control endpoint: `{requestId, outcome, payload, errorType, instance}`.
    func invoke(_ event: [UInt8]) async throws -> JSONValue {
        let response = try await transport.send(
            HTTPRequest(method: "POST", url: control + "/invoke", body: event, timeout: .seconds(30))
        )
        return try JSONValue.parse(response.body)
    }

    func get(_ path: String) async throws -> JSONValue {
        try JSONValue.parse(try await transport.send(HTTPRequest(method: "GET", url: control + path)).body)
    }

    /// Polls `condition` every 100 ms for up to `seconds`.
    func eventually(seconds: Int = 10, _ condition: () async throws -> Bool) async throws -> Bool {
        for _ in 0..<(seconds * 10) {
            if try await condition() { return true }
            try await Task.sleep(for: .milliseconds(100))
        }
        return false
    }
}

extension JSONValue {
    /// A copy with `key` set in this object (tests build events from fixtures).
    func setting(_ key: String, _ value: JSONValue) -> JSONValue {
        guard case .object(var members) = self else { return self }
        members[key] = value
        return .object(members)
    }
}
