/// The model and method of a Gemini upstream path: `…/models/{model}:generateContent` (buffered) or
/// `…/models/{model}:streamGenerateContent?alt=sse` (server-sent events).
package struct GeminiMethod: Sendable, Hashable {
    /// The model id as the route's `models` lists it (`gemini-2.5-flash`, without `models/`).
    package var model: String
    package var streams: Bool

    /// `nil` when the path names no `models/{model}` with one of those methods (a streamed path must ask
    /// for `alt=sse`: without it Gemini streams one JSON array, which the gate does not read).
    /// - Parameter upstreamPath: e.g. `/v1beta/models/gemini-2.5-flash:generateContent`.
    package init?(upstreamPath: String) {
        let (path, query) = Self.split(upstreamPath)
        let segments = path.split(separator: "/", omittingEmptySubsequences: false)
        guard segments.count >= 2, segments[segments.count - 2] == "models",
            let colon = segments.last!.lastIndex(of: ":")
        else { return nil }
        let last = segments.last!
        let model = last[..<colon]
        let method = last[last.index(after: colon)...]
        let modelCharacters = model.unicodeScalars.allSatisfy {
            ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0)
                || "-._".unicodeScalars.contains($0)
        }
        guard !model.isEmpty, model.utf8.count <= 128, modelCharacters else { return nil }
        switch method {
        case "generateContent" where query.isEmpty:
            self.streams = false
        case "streamGenerateContent" where query.split(separator: "&").contains("alt=sse"):
            self.streams = true
        default:
            return nil
        }
        self.model = String(model)
    }

    private static func split(_ path: String) -> (Substring, Substring) {
        guard let mark = path.firstIndex(of: "?") else { return (path[...], "") }
        return (path[..<mark], path[path.index(after: mark)...])
    }
}
