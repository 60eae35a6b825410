internal import AttestCore
internal import HTTPClient

/// The local stack's control endpoints: the harness's captured `bootstrap` log lines and the fake
/// upstream's failure switch. (Apps never see these; they are how the demo shows what happened inside.)
struct Stack: Sendable {
    let harnessControl: String
    let upstreamControl: String
    let transport = CurlTransport()

    /// Decision lines (`"logger":"attestgate.decision"`) the bootstraps wrote, parsed.
    func decisionLines() async throws -> [JSONValue] {
        let response = try await transport.send(HTTPRequest(method: "GET", url: harnessControl + "/logs"))
        guard let entries = (try JSONValue.parse(response.body)).arrayValue else { return [] }
        return entries.compactMap { entry in
            guard let text = entry["line"]?.stringValue, let line = try? JSONValue.parse(Array(text.utf8)),
                line["logger"]?.stringValue == "attestgate.decision"
            else { return nil }
            return line
        }
    }

    /// Makes the fake upstream answer its next `count` calls with `status` (503: the provider is down).
    func failUpstream(status: Int, count: Int) async throws {
        let body = JSONValue.object(["status": .int(Int64(status)), "count": .int(Int64(count))])
        let response = try await transport.send(
            HTTPRequest(method: "POST", url: upstreamControl + "/control/fail", body: body.serializedBytes)
        )
        guard response.status == 200 else { throw DemoError("fake upstream control: \(response.status)") }
    }
}
