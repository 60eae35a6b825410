// `make bench` (local-harness/bench.py): a genuine iOS client for the gate-latency and DynamoDB-request
// figures. It registers a simulated App Attest key through the real HTTP API (challenge → attestation →
// key registration) and then makes metered calls, alternating a route in `enforce` with the same route
// in `off`, timing each call with CLOCK_MONOTONIC (the clock Python's time.monotonic_ns reads), so the
// driver can line the calls up with the DynamoDB requests its proxy saw.
//
// usage: GateBench --root-out PATH [--ca-out DIR]
//   writes the synthetic Apple root (APP_ATTEST_TRUST_ROOT) to PATH (and, with --ca-out, the whole CA to DIR:
//   fake Apple's receipt exchange signs under it) and prints `READY`, then reads
//   commands on stdin, one per line:
//   RUN <front URL> <enforce path> <off path> <calls> [chat]
//     → one JSON line {"register":…,"registerSpan":[start_ns,end_ns],"enforce":[…],"off":[…]}
//   (`chat`: an OpenAI chat body, for a route with a known dialect and the money ceiling)
//   where each call is [start_ns, end_ns, status]. The registration carries a DeviceCheck token of the simulated
//   phone (`deviceCheckToken`), so with DEVICE_MARKS=on its device ID is the phone's first.
internal import AttestCore
internal import Crypto
internal import FoundationEssentials
internal import Glibc
internal import HTTPClient
internal import SimulatedDevice
internal import WireContract

func monotonicNanoseconds() -> Int64 {
    var spec = timespec()
    clock_gettime(CLOCK_MONOTONIC, &spec)
    return Int64(spec.tv_sec) * 1_000_000_000 + Int64(spec.tv_nsec)
}

func fail(_ message: String) -> Never {
    FileHandleless.error("GateBench: \(message)\n")
    exit(1)
}

enum FileHandleless {
    static func error(_ text: String) {
        var bytes = Array(text.utf8)
        _ = write(2, &bytes, bytes.count)
    }
}

guard let rootIndex = CommandLine.arguments.firstIndex(of: "--root-out"),
    rootIndex + 1 < CommandLine.arguments.count
else { fail("usage: GateBench --root-out PATH") }
let rootPath = CommandLine.arguments[rootIndex + 1]

CurlTransport.globalInit()
let transport = CurlTransport()
let teamID = "ABCDE12345"
let bundleID = "com.example.gate"
let authority = try SimulatedAppleCA(now: Date())
let device = SimulatedDevice(teamId: teamID, bundleId: bundleID, environment: .development, authority: authority)
do {
    try Data(authority.rootPEM.utf8).write(to: URL(fileURLWithPath: rootPath))
} catch {
    fail("cannot write \(rootPath)")
}
if let caIndex = CommandLine.arguments.firstIndex(of: "--ca-out"), caIndex + 1 < CommandLine.arguments.count {
    do { try authority.save(to: CommandLine.arguments[caIndex + 1]) } catch { fail("cannot write the CA: \(error)") }
}
print("READY")
fflush(nil)

func uuid() -> String {
    var bytes = SecureRandom().bytes(16)
    bytes[6] = (bytes[6] & 0x0F) | 0x40
    bytes[8] = (bytes[8] & 0x3F) | 0x80
    let hex = Bytes.hex(bytes)
    let c = Array(hex)
    return String(c[0..<8]) + "-" + String(c[8..<12]) + "-" + String(c[12..<16]) + "-" + String(c[16..<20]) + "-"
        + String(c[20..<32])
}

func post(_ url: String, _ headers: [HTTPHeader], _ body: [UInt8]) async -> (HTTPResponse?, Int64, Int64) {
    let start = monotonicNanoseconds()
    let response = try? await transport.send(HTTPRequest(method: "POST", url: url, headers: headers, body: body))
    return (response, start, monotonicNanoseconds())
}

func challenge(_ front: String, _ deviceID: String) async -> String {
    let (response, _, _) = await post(
        front + "/v1/attest/challenge",
        [HTTPHeader(WireHeader.deviceID.name, deviceID)],
        []
    )
    guard let response, response.status == 200, let value = try? JSONValue.parse(response.body),
        let text = value["challenge"]?.stringValue
    else { fail("challenge failed: \(response.map { String($0.status) } ?? "no answer")") }
    return text
}

func run(front: String, enforcePath: String, offPath: String, calls: Int, chat: Bool = false) async -> String {
    let deviceID = uuid()
    var key = try! SimulatedAppAttestKey()
    let first = await challenge(front, deviceID)
    let attestation = try! device.attest(
        key,
        clientDataHash: ChallengeBinding.appAttestClientDataHash(challenge: Bytes.fromBase64(first)!),
        now: Date()
    )
    let registration =
        #"{"keyId":"\#(Bytes.base64(key.keyId))","attestation":"\#(Bytes.base64(attestation))","challenge":"\#(first)","#
        + #""deviceCheckToken":"\#(device.deviceCheckToken())"}"#
    let (registered, registerStart, registerEnd) = await post(
        front + "/v1/attest/keys",
        [HTTPHeader(WireHeader.deviceID.name, deviceID), HTTPHeader("Content-Type", "application/json")],
        Array(registration.utf8)
    )
    guard let registered, registered.status == 200 else {
        fail("key registration failed: \(registered.map { String($0.status) } ?? "no answer")")
    }

    var current = await challenge(front, deviceID)
    var enforced: [String] = []
    var off: [String] = []
    let body = Array(
        (chat
            ? #"{"model":"bench-model","messages":[{"role":"user","content":"benchmark"}]}"#
            : #"{"prompt":"benchmark"}"#)
            .utf8
    )
    for _ in 0..<calls {
        let clientData = ClientData(challenge: current, method: "POST", path: enforcePath, body: body)
        let assertion = try! device.assert(&key, clientDataHash: clientData.appAttestClientDataHash)
        let (answer, start, end) = await post(
            front + enforcePath,
            [
                HTTPHeader(WireHeader.deviceID.name, deviceID),
                HTTPHeader("Content-Type", "application/json"),
                HTTPHeader(WireHeader.challenge.name, current),
                HTTPHeader(WireHeader.appAttestKeyID.name, Bytes.base64(key.keyId)),
                HTTPHeader(WireHeader.appAttestAssertion.name, Bytes.base64(assertion)),
                HTTPHeader(WireHeader.clientData.name, clientData.header),
            ],
            body
        )
        enforced.append("[\(start),\(end),\(answer?.status ?? 0)]")
        if let next = answer?.header(WireHeader.nextChallenge.name) {
            current = next
        } else {
            current = await challenge(front, deviceID)
        }
        let (plain, offStart, offEnd) = await post(
            front + offPath,
            [HTTPHeader(WireHeader.deviceID.name, deviceID), HTTPHeader("Content-Type", "application/json")],
            body
        )
        off.append("[\(offStart),\(offEnd),\(plain?.status ?? 0)]")
    }
    return
        #"{"register":\#(registered.status),"registerSpan":[\#(registerStart),\#(registerEnd)],"enforce":[\#(enforced.joined(separator: ","))],"off":[\#(off.joined(separator: ","))]}"#
}

while let line = readLine() {
    let parts = line.split(separator: " ").map(String.init)
    guard parts.count == 5 || (parts.count == 6 && parts[5] == "chat"), parts[0] == "RUN", let calls = Int(parts[4])
    else {
        if parts.first == "QUIT" { break }
        fail("unknown command: \(line)")
    }
    print(await run(front: parts[1], enforcePath: parts[2], offPath: parts[3], calls: calls, chat: parts.count == 6))
    fflush(nil)
}
