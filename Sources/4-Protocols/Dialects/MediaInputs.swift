internal import AttestCore

/// Refuses media in a request (images, audio, video, PDFs and other files, inline or by URL or file id)
/// unless the route declares `maxInputTokens`: a provider prices media by pixels, pages or seconds, not by
/// bytes, so a 100-byte URL can bill a context window and the body's byte count bounds nothing.
enum MediaInputs {
    /// Content part and block types that carry media: OpenAI chat (`image_url`, `input_audio`, `file`),
    /// OpenAI Responses (`input_image`, `input_file`, `input_audio`), Anthropic (`image`, `document`,
    /// `container_upload`), wherever they are nested (an Anthropic `tool_result` may hold images).
    static let openAITypes: Set<String> = ["image_url", "input_audio", "file", "audio", "video_url"]
    static let responsesTypes: Set<String> = ["input_image", "input_file", "input_audio", "input_video"]
    static let anthropicTypes: Set<String> = ["image", "document", "container_upload", "video", "audio"]
    /// Gemini's `Part` fields that carry media (both spellings the proto JSON parser takes).
    static let geminiKeys: Set<String> = ["inlineData", "inline_data", "fileData", "file_data"]

    static func checkOpenAIChat(_ request: [String: JSONValue], policy: DialectPolicy) throws(DialectRefusal) {
        guard !policy.acceptsMedia else { return }
        try refuse(typeIn: openAITypes, in: .object(request))
    }

    static func checkOpenAIResponses(_ request: [String: JSONValue], policy: DialectPolicy) throws(DialectRefusal) {
        guard !policy.acceptsMedia else { return }
        try refuse(typeIn: responsesTypes.union(openAITypes), in: .object(request))
    }

    static func checkAnthropic(_ request: [String: JSONValue], policy: DialectPolicy) throws(DialectRefusal) {
        guard !policy.acceptsMedia else { return }
        try refuse(typeIn: anthropicTypes, in: .object(request))
    }

    /// Only the conversation and the system instruction are searched: a function's parameter schema may
    /// name a property `fileData` without carrying one.
    static func checkGemini(_ request: [String: JSONValue], policy: DialectPolicy) throws(DialectRefusal) {
        guard !policy.acceptsMedia else { return }
        for field in ["contents", "systemInstruction", "system_instruction"] {
            guard let value = request[field] else { continue }
            let key = RequestFields.firstMatch(in: value) { members in
                members.first { geminiKeys.contains($0.key) && $0.value != .null }?.key
            }
            if let key { throw DialectRefusal(.mediaInput, detail: "\(field) \(key)") }
        }
    }

    /// Any object in the document whose `type` is one of `types`. JSON Schema types (`object`, `string`,
    /// …) never are, so a tool's parameter schema does not match.
    private static func refuse(typeIn types: Set<String>, in value: JSONValue) throws(DialectRefusal) {
        let type = RequestFields.firstMatch(in: value) { members in
            guard case .string(let type)? = members["type"], types.contains(type) else { return nil }
            return type
        }
        if let type { throw DialectRefusal(.mediaInput, detail: "type \(type.prefix(40))") }
    }
}
