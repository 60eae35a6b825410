internal import AttestCore
internal import AttestGateClient
internal import FoundationEssentials
internal import Glibc
internal import SimulatedDevice

/// `attestgate-demo enclave --ca DIR [--team-id T] [--bundle-id B]`: one simulated iPhone's Secure Enclave
/// (`SimulatedEnclave`, signed by the synthetic CA in DIR) served over stdin/stdout, one JSON object a line,
/// so that a client outside this package (the Swift client's stack tests, Clients/swift) can stand it in
/// for `DCAppAttestService` and `DCDevice` against the real server.
///
/// Requests: `{"op":"isSupported"}`, `{"op":"generateKey"}`, `{"op":"attestKey","keyId":…,"clientDataHash":…}`,
/// `{"op":"generateAssertion","keyId":…,"clientDataHash":…}`, `{"op":"deviceCheckToken"}`, and the test
/// controls `{"op":"reinstall"}`, `{"op":"invalidate","keyId":…}`, `{"op":"failAttestations","count":n}`,
/// `{"op":"setSupported","value":bool}`. Byte values are standard base64. Answers: `{"ok":true,…}` with
/// `supported`, `keyId`, `attestation`, `assertion` or `token`, or `{"ok":false,"error":"<slug>"}` (the
/// `AppAttestError` reason: `appattest.invalid_key`, `appattest.server_unavailable`, …). End of input ends it.
enum EnclaveCommand {
    static func run(_ arguments: [String]) async -> Int32 {
        var options: [String: String] = ["--team-id": "DEMOTEAM01", "--bundle-id": "com.example.flashcards"]
        var rest = arguments[...]
        while let flag = rest.popFirst() {
            guard ["--ca", "--team-id", "--bundle-id"].contains(flag), let value = rest.popFirst() else {
                print("usage: attestgate-demo enclave --ca DIR [--team-id T] [--bundle-id B]")
                return 2
            }
            options[flag] = value
        }
        guard let directory = options["--ca"], let authority = try? SimulatedAppleCA(loadingFrom: directory) else {
            print("usage: attestgate-demo enclave --ca DIR (a CA made by `attestgate-demo ca --dir DIR`)")
            return 2
        }
        let device = SimulatedDevice(
            teamId: options["--team-id"] ?? "",
            bundleId: options["--bundle-id"] ?? "",
            environment: .development,
            authority: authority
        )
        let enclave = SimulatedEnclave(device: device)
        let deviceCheck = SimulatedDeviceCheck(device: device)
        while let line = readLine() {
            let answer: JSONValue
            do {
                answer = try await handle(try JSONValue.parse(Array(line.utf8)), enclave, deviceCheck)
            } catch let error as AppAttestError {
                answer = .object(["ok": .bool(false), "error": .string(error.reason.slug)])
            } catch {
                answer = .object(["ok": .bool(false), "error": .string("enclave.bad_request")])
            }
            writeLine(answer.serialized)
        }
        return 0
    }

    /// One line on stdout, unbuffered (the other end waits for it).
    private static func writeLine(_ text: String) {
        var bytes = Array((text + "\n").utf8)
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeMutableBytes { write(1, $0.baseAddress! + offset, $0.count - offset) }
            guard written > 0 else { return }
            offset += written
        }
    }

    private static func handle(
        _ request: JSONValue,
        _ enclave: SimulatedEnclave,
        _ deviceCheck: SimulatedDeviceCheck
    ) async throws -> JSONValue {
        let keyID = request["keyId"]?.stringValue ?? ""
        let hash = Bytes.fromBase64(request["clientDataHash"]?.stringValue ?? "") ?? []
        var answer: [String: JSONValue] = ["ok": .bool(true)]
        switch request["op"]?.stringValue {
        case "isSupported": answer["supported"] = .bool(await enclave.isSupported())
        case "generateKey": answer["keyId"] = .string(try await enclave.generateKey())
        case "attestKey":
            answer["attestation"] = .string(Bytes.base64(try await enclave.attestKey(keyID, clientDataHash: hash)))
        case "generateAssertion":
            answer["assertion"] = .string(
                Bytes.base64(try await enclave.generateAssertion(keyID, clientDataHash: hash))
            )
        case "deviceCheckToken": answer["token"] = .string(Bytes.base64(try await deviceCheck.generateToken()))
        case "reinstall": await enclave.reinstall()
        case "invalidate": await enclave.invalidate(keyID)
        case "failAttestations": await enclave.failAttestations(Int(request["count"]?.intValue ?? 0))
        case "setSupported": await enclave.setSupported(request["value"]?.boolValue ?? true)
        default: return .object(["ok": .bool(false), "error": .string("enclave.unknown_op")])
        }
        return .object(answer)
    }
}
