import AWSJSON
import AttestCore
import CivilTime
import Crypto
import DynamoDB
import FoundationEssentials
import Gate
import HTTPClient
import Synchronization
import TestSupport

/// How a check makes the client send its write a second time after the first send has landed.
enum ResendMethod: String, Sendable, CaseIterable {
    /// A `ResendingTransport` beneath the client sends every write (`UpdateItem`, and `TransactWriteItems` for
    /// a give-back) again once its first answer has arrived, and hands the client only the second answer (as
    /// botocore's `needs-retry` handler does when it answers "retry after 0 s").
    case hook = "resend-hook"
    /// The loss proxy forwards the write, lets it commit, then drops the connection before the answer,
    /// so the client's real retry path (a connection failure, the standard retry mode) sends it again.
    case proxy = "loss-proxy"
}

/// Whether a run's writes keep the product's resend protection or lose it on the wire (`TokenlessTransport`).
enum WriteSafety: Sendable, Hashable {
    /// The product as it ships.
    case ownWriteTokens
    /// The control: the product's write with its own-write token removed (a give-back: with its marker).
    case tokensRemoved
}

/// A transport that counts what it sends and keeps the `UpdateItem` bodies, so a check can prove that a
/// refused request never left the process and can replay the product's exact write with a broken expression.
final class RecordingTransport: HTTPTransport {
    private let inner: CurlTransport
    private let state = Mutex<(sent: Int, updates: [[UInt8]])>((0, []))

    init(_ inner: CurlTransport = CurlTransport()) { self.inner = inner }

    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        let isUpdate = request.headers.contains { $0.name == "X-Amz-Target" && $0.value.hasSuffix(".UpdateItem") }
        let isTransaction = request.headers.contains {
            $0.name == "X-Amz-Target" && $0.value.hasSuffix(".TransactWriteItems")
        }
        // A transaction's `Update` actions have the shape of an `UpdateItem` input: kept as such.
        var updates = isUpdate ? [request.body] : []
        if isTransaction, let document = try? JSONValue.parse(request.body) {
            for action in document["TransactItems"]?.arrayValue ?? [] {
                if let update = action["Update"] { updates.append(update.serializedBytes) }
            }
        }
        state.withLock { state in
            state.sent += 1
            state.updates += updates
        }
        return try await inner.send(request)
    }

    var sent: Int { state.withLock { $0.sent } }

    /// The last `UpdateItem` body that contains `text` (the write under test, picked by its key).
    func lastUpdate(containing text: String) -> [UInt8]? {
        state.withLock { state in
            state.updates.last { String(decoding: $0, as: UTF8.self).contains(text) }
        }
    }
}

/// The loss proxy's control port (local-harness/loss_proxy.py).
struct LossProxy: Sendable {
    let control: String
    let transport = CurlTransport()

    func reset() async throws { try await post("/reset") }

    /// Loses the next answer to an `operation` request whose body contains `match`, after letting `skip`
    /// such answers through.
    func arm(match: String, skip: Int = 0, operation: String = "UpdateItem") async throws {
        try await post("/arm?op=\(operation)&count=1&match=\(Self.encode(match))&skip=\(skip)")
    }

    /// How many write answers (`UpdateItem`, `TransactWriteItems`) were lost since the last reset.
    func lostUpdates() async throws -> Int {
        let response = try await transport.send(HTTPRequest(method: "GET", url: control + "/stats"))
        let stats = try JSONValue.parse(response.body)
        let lost = stats["lost"]
        return Int((lost?["UpdateItem"]?.intValue ?? 0) + (lost?["TransactWriteItems"]?.intValue ?? 0))
    }

    private func post(_ path: String) async throws {
        let response = try await transport.send(HTTPRequest(method: "POST", url: control + path))
        guard response.status == 200 else { throw HarnessError("loss proxy \(path): HTTP \(response.status)") }
    }

    private static func encode(_ text: String) -> String {
        var out = ""
        for byte in text.utf8 {
            if (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A) {
                out.append(Character(Unicode.Scalar(byte)))
            } else {
                let hex = Bytes.hex([byte]).uppercased()
                out += "%" + hex
            }
        }
        return out
    }
}

struct HarnessError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Everything the checks share: the endpoints, one fresh table, and factories for clients.
struct Harness: Sendable {
    let moto: String
    let proxyEndpoint: String
    let proxy: LossProxy
    let table: Table

    static let credentials: [String: String] = [
        "AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing", "AWS_REGION": "us-east-1",
    ]

    static func configuration(endpoint: String) throws -> AWSServiceConfiguration {
        var environment = credentials
        environment["DYNAMODB_ENDPOINT"] = endpoint
        return DynamoDBClient.configuration(try AWSEnvironment(environment))
    }

    /// A client of its own (a Lambda instance of its own), sending through `transport`.
    func client(endpoint: String? = nil, transport: any HTTPTransport = RecordingTransport()) throws -> DynamoDBClient {
        DynamoDBClient(
            configuration: try Self.configuration(endpoint: endpoint ?? moto),
            transport: transport,
            random: SecureRandom()
        )
    }

    /// The transports of one writer, outermost first: the resend of every write (when asked; held back by
    /// `hold`), the token's and marker's removal (for a control), then `recording` on the wire, which
    /// therefore keeps what was really sent.
    static func wire(
        _ recording: RecordingTransport,
        _ safety: WriteSafety,
        resend: Bool,
        hold: Duration = .zero
    ) -> (transport: any HTTPTransport, resending: ResendingTransport?, tokenless: TokenlessTransport?) {
        let tokenless = safety == .tokensRemoved ? TokenlessTransport(recording) : nil
        let below: any HTTPTransport = tokenless ?? recording
        let resending =
            resend
            ? ResendingTransport(below, resending: ["UpdateItem", "TransactWriteItems"], holdingResendFor: hold) : nil
        return (resending ?? below, resending, tokenless)
    }

    /// The gate's view of the table through `client`.
    func gateTable(_ client: DynamoDBClient) -> GateTable {
        GateTable(client: client, table: table, random: SecureRandom())
    }

    /// A plain product table on moto directly: setup and read-back, never resent.
    func plain() throws -> GateTable { gateTable(try client()) }

    /// The row as it is now (strongly consistent), read directly from moto.
    func row(_ key: Item) async throws -> Item? {
        try await client().getItem(table, key: key, deadline: .after(.seconds(5)))
    }
}

/// Fresh identifiers for one run of one check, so runs never see each other's rows.
struct RunIDs: Sendable {
    let id: String
    let day: String

    private static let counter = Atomic<Int>(0)

    static func next() -> RunIDs {
        let index = counter.add(1, ordering: .sequentiallyConsistent).newValue
        // A distinct, well-formed day per run (2031-01-01 onwards), for the per-day rows.
        let day = CivilDate(daysSinceEpoch: 22_281 + Int64(index)).iso
        return RunIDs(id: "h\(index)-" + Bytes.hex(SecureRandom().bytes(6)), day: day)
    }
}
