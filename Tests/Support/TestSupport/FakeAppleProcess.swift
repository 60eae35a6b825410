public import AttestCore
internal import Glibc
public import HTTPClient

/// `local-harness/fake_apple.py` (DeviceCheck two bits per physical device, App Attest receipt
/// exchange), started by a test on a free loopback port and stopped in `stop()`.
///
/// The `.p8` is written to a fresh temporary folder; the fake keeps only its public half, as Apple does.
public final class FakeAppleProcess: Sendable {
    public let port: Int
    private let folder: String
    private let child: ChildProcess

    public static let script: String = {
        let root = #filePath.split(separator: "/").dropLast(4).joined(separator: "/")
        return "/" + root + "/local-harness/fake_apple.py"
    }()

    public struct StartError: Error { public let what: String }

    /// Starts the fake.
    /// - Parameters:
    ///   - keyPEM: the DeviceCheck `.p8` (PKCS#8 P-256) whose public half checks every JWT.
    ///   - keyID: the JWT `kid` required (nil: any).
    ///   - teamID: the JWT `iss` required (nil: any).
    public init(keyPEM: String, keyID: String? = nil, teamID: String? = nil) throws {
        var template = Array("/tmp/attestgate-fake-apple-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw StartError(what: "mkdtemp") }
        folder = String(cString: made)
        let keyPath = folder + "/devicecheck.p8"
        guard let file = fopen(keyPath, "wb") else { throw StartError(what: "fopen") }
        let bytes = Array(keyPEM.utf8)
        let written = fwrite(bytes, 1, bytes.count, file)
        fclose(file)
        guard written == bytes.count else { throw StartError(what: "fwrite") }
        var arguments = ["python3", Self.script, "--key", keyPath, "--port", "0"]
        if let keyID { arguments += ["--key-id", keyID] }
        if let teamID { arguments += ["--team-id", teamID] }
        let path = getenv("PATH").map { String(cString: $0) } ?? "/usr/bin:/bin"
        child = try ChildProcess(arguments, environment: ["PATH": path])
        guard let line = child.readLine(), line.hasPrefix("LISTENING "),
            let port = Int(line.dropFirst("LISTENING ".count))
        else {
            child.terminate()
            throw StartError(what: "fake_apple.py did not start (see \(ChildProcess.stderrLog))")
        }
        self.port = port
    }

    public var baseURL: String { "http://127.0.0.1:\(port)" }

    /// Stops the process (by its pid) and removes the key file.
    public func stop() {
        child.terminate()
        unlink(folder + "/devicecheck.p8")
        rmdir(folder)
    }

    /// POSTs a control command and expects 200.
    public func control(_ path: String, _ body: JSONValue, transport: some HTTPTransport) async throws {
        let response = try await transport.send(
            HTTPRequest(
                method: "POST",
                url: baseURL + path,
                headers: [HTTPHeader("Content-Type", "application/json")],
                body: body.serializedBytes
            )
        )
        guard response.status == 200 else { throw StartError(what: "control \(path): \(response.status)") }
    }

    /// Makes DeviceCheck token `token` one of physical device `device`'s.
    public func registerDevice(token: String, device: String, transport: some HTTPTransport) async throws {
        try await control(
            "/control/device",
            .object(["token": .string(token), "device": .string(device)]),
            transport: transport
        )
    }

    /// Plants `device`'s bits as if last updated in `month` (`YYYY-MM`).
    public func setBits(
        device: String,
        bit0: Bool,
        bit1: Bool,
        month: String,
        transport: some HTTPTransport
    ) async throws {
        try await control(
            "/control/bits",
            .object([
                "device": .string(device), "bit0": .bool(bit0), "bit1": .bool(bit1),
                "last_update_time": .string(month),
            ]),
            transport: transport
        )
    }

    /// The stored bits of `device` (`null` when never set).
    public func bits(device: String, transport: some HTTPTransport) async throws -> JSONValue {
        let response = try await transport.send(
            HTTPRequest(method: "GET", url: baseURL + "/control/bits?device=" + device)
        )
        return try JSONValue.parse(response.body)
    }

    /// The fake's request counters.
    public func stats(transport: some HTTPTransport) async throws -> JSONValue {
        try JSONValue.parse(try await transport.send(HTTPRequest(method: "GET", url: baseURL + "/control/stats")).body)
    }

    /// Lets the fake issue `RECEIPT` receipts itself, signed with `keyPEM` (PKCS#8 P-256) and carrying
    /// `certificates` (DER: the signer's, then the receipt CA's), e.g. a simulated Apple CA's `receiptSigning`.
    public func setReceiptSigner(keyPEM: String, certificates: [[UInt8]], transport: some HTTPTransport) async throws {
        try await control(
            "/control/receipt-signer",
            .object([
                "key": .string(keyPEM), "certificates": .array(certificates.map { .string(Bytes.base64($0)) }),
            ]),
            transport: transport
        )
    }

    /// Makes App Attest key `keyId` one of physical device `device`'s (its receipts then report the device's metric).
    public func registerKey(_ keyId: [UInt8], device: String, transport: some HTTPTransport) async throws {
        try await control(
            "/control/key",
            .object(["keyId": .string(Bytes.base64(keyId)), "device": .string(device)]),
            transport: transport
        )
    }

    /// The fraud-risk metric the fake reports for `device`'s keys.
    public func setRiskMetric(_ metric: Int, device: String, transport: some HTTPTransport) async throws {
        try await control(
            "/control/metric",
            .object(["device": .string(device), "metric": .int(Int64(metric))]),
            transport: transport
        )
    }
}
