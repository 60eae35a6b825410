internal import AttestCore
internal import FoundationEssentials
internal import HTTPClient
internal import WireContract

/// A streamed route: the tutor's answer arrives event by event (Lambda response streaming, docs/streaming.md).
extension Session {
    static let streamPath = "/v1/tutor/stream"
    static let streamBody = Array(
        #"{"stream":true,"question":"Why is ATP called the energy currency?","events":10,"intervalMs":120}"#.utf8
    )

    func streamedTutor() async throws {
        report.header("Streaming: a tutor answer through Lambda response streaming (stream: true)")
        let stream = ResponseBodyStream(capacity: 1 << 16)
        let started = ContinuousClock.now
        let head = try await CurlTransport().open(
            HTTPRequest(
                method: "POST",
                url: options.front + Self.streamPath,
                headers: [
                    HTTPHeader(WireHeader.deviceID.name, Self.newDeviceID()),
                    HTTPHeader("Content-Type", "application/json"),
                ],
                body: Self.streamBody,
                timeout: .seconds(20)
            ),
            into: stream
        )
        var arrivals: [Int] = []
        var text = ""
        var failure: String?
        do {
            while let piece = try await stream.next() {
                let elapsed = ContinuousClock.now - started
                arrivals.append(
                    Int(elapsed.components.seconds * 1000 + elapsed.components.attoseconds / 1_000_000_000_000_000)
                )
                let words = Self.contentDeltas(piece)
                if !words.isEmpty { text += (text.isEmpty ? "" : " ") + words }
            }
        } catch {
            failure = error.reason.slug
        }
        let shown = arrivals.prefix(6).map { "\($0) ms" }.joined(separator: ", ")
        report.note("pieces arrived at \(shown)\(arrivals.count > 6 ? ", …" : "") (\(arrivals.count) in all)")
        report.note("assembled: \"\(text.prefix(90))\"")
        let spread = (arrivals.last ?? 0) - (arrivals.first ?? 0)
        report.step(
            "guest (monitor)",
            "asks the tutor on the streamed route",
            expected: "200 text/event-stream in pieces",
            got: "\(head.status) \(head.header("content-type") ?? "-"), \(arrivals.count) pieces over \(spread) ms"
                + (failure.map { ", ended \($0)" } ?? ""),
            ok: head.status == 200 && head.header("content-type") == "text/event-stream" && arrivals.count >= 3
                && spread >= 500 && failure == nil
        )
    }

    /// The `delta.content` strings of OpenAI-style chunks in `piece` (for display only).
    static func contentDeltas(_ piece: [UInt8]) -> String {
        var text = ""
        for line in String(decoding: piece, as: UTF8.self).split(separator: "\n") where line.hasPrefix("data: {") {
            let json = try? JSONValue.parse(Array(line.dropFirst(6).utf8))
            if let content = json?["choices"]?.arrayValue?.first?["delta"]?["content"]?.stringValue {
                text += (text.isEmpty ? "" : " ") + content
            }
        }
        return text
    }
}
