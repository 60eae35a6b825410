internal import AttestCore
internal import AttestGateClient
internal import FoundationEssentials

/// A streamed route: the tutor's answer arrives event by event (Lambda response streaming, docs/streaming.md),
/// read by the shipped client as an `AsyncSequence` of server-sent events.
extension Session {
    static let streamPath = "/v1/tutor/stream"
    static let streamBody = Array(
        #"{"variables":{"question":"Why is ATP called the energy currency?"}}"#.utf8
    )

    func streamedTutor() async throws {
        report.header("Streaming: a tutor answer through Lambda response streaming (stream: true)")
        let started = ContinuousClock.now
        let outcome = await iphone.stream(Self.streamPath, body: Self.streamBody)
        guard case .streamed(let events, _) = outcome else {
            report.step(
                "iPhone (genuine)",
                "asks the tutor on the streamed route",
                expected: "200 text/event-stream, event by event",
                got: describe(outcome),
                ok: false
            )
            return
        }
        var arrivals: [Int] = []
        var text = ""
        var failure: String?
        do {
            for try await event in events {
                let elapsed = ContinuousClock.now - started
                arrivals.append(
                    Int(elapsed.components.seconds * 1000 + elapsed.components.attoseconds / 1_000_000_000_000_000)
                )
                if let words = Self.contentDelta(event.data) { text += (text.isEmpty ? "" : " ") + words }
            }
        } catch {
            failure = "\(error)"
        }
        let shown = arrivals.prefix(6).map { "\($0) ms" }.joined(separator: ", ")
        report.note("events arrived at \(shown)\(arrivals.count > 6 ? ", …" : "") (\(arrivals.count) in all)")
        report.note("assembled: \"\(text.prefix(90))\"")
        let spread = (arrivals.last ?? 0) - (arrivals.first ?? 0)
        report.step(
            "iPhone (genuine)",
            "asks the tutor on the streamed route",
            expected: "200 text/event-stream, event by event",
            got: "200 text/event-stream, \(arrivals.count) events over \(spread) ms"
                + (failure.map { ", ended \($0)" } ?? ""),
            ok: arrivals.count >= 3 && spread >= 500 && failure == nil
        )
    }

    /// The `delta.content` of an OpenAI-style chunk (for display only).
    static func contentDelta(_ data: String) -> String? {
        let json = try? JSONValue.parse(Array(data.utf8))
        return json?["choices"]?.arrayValue?.first?["delta"]?["content"]?.stringValue
    }
}
