internal import AttestCore

/// OpenAI Responses (`POST /v1/responses`): `model`, `max_output_tokens` (reasoning included), `stream`;
/// no choice count. Usage in `usage.input_tokens` / `usage.output_tokens`, streamed in the terminal
/// `response.completed` / `response.incomplete` / `response.failed` event's `response`.
enum OpenAIResponses {
    /// Fields that pull in context stored at OpenAI, which the body's size does not bound.
    static let storedContextFields = ["previous_response_id", "conversation", "prompt"]
    static let terminalEvents: Set<String> = ["response.completed", "response.incomplete", "response.failed"]

    static func prepare(
        _ request: [String: JSONValue],
        policy: DialectPolicy
    ) throws(DialectRefusal)
        -> PreparedRequest
    {
        var request = request
        let model = try RequestFields.model(RequestFields.string(request, "model"), policy: policy)
        try RequestFields.refuse(request, storedContextFields, reason: .storedContext)
        if case .array(let items)? = request["input"] {
            for item in items { try checkInputItem(item) }
        }
        try HostedTools.checkOpenAI(request)
        try MediaInputs.checkOpenAIResponses(request, policy: policy)
        try policy.checkClosedWorld(request, OpenAIShapes.responses)
        try OpenAIServiceTier.pin(&request, policy: policy)
        let streams = try RequestFields.bool(request, "stream") ?? false
        let cap = policy.maxOutputTokens
        let requested = try RequestFields.int(request, "max_output_tokens")
        let applied = try RequestFields.lowered(requested, field: "max_output_tokens", cap: cap) ?? cap
        request["max_output_tokens"] = .int(Int64(applied))
        return PreparedRequest(
            body: JSONValue.object(request).serializedBytes,
            model: model,
            streams: streams,
            maxOutputTokens: applied
        )
    }

    /// Refuses an input item that OpenAI fills in from what it stored, which the body does not carry: an
    /// `item_reference`, also without its `type` (OpenAI reads an item with no type and no `role` as a
    /// reference by `id`), and a `reasoning` item without its `encrypted_content`.
    static func checkInputItem(_ item: JSONValue) throws(DialectRefusal) {
        guard case .object(let members) = item else { return }
        switch members["type"] {
        case .string("item_reference")?:
            throw DialectRefusal(.storedContext, detail: "input item_reference")
        case nil, .null?:
            // An input message may leave out its type (`{"role": …, "content": …}`); nothing else may.
            let isMessage = members["role"].map { $0 != .null } ?? false
            guard isMessage else { throw DialectRefusal(.storedContext, detail: "input item without a type") }
        case .string("reasoning")?:
            guard case .string(let sealed)? = members["encrypted_content"], !sealed.isEmpty else {
                throw DialectRefusal(.storedContext, detail: "input reasoning without encrypted_content")
            }
        default:
            break
        }
    }

    /// A response object.
    static func usage(_ response: JSONValue) -> Usage? {
        guard let usage = response["usage"]?.objectValue,
            let input = TokenCount.read(usage["input_tokens"]),
            let output = TokenCount.read(usage["output_tokens"])
        else { return nil }
        let details = usage["input_tokens_details"]?.objectValue
        guard let cached = TokenCount.readOptional(details?["cached_tokens"]),
            let written = TokenCount.readOptional(details?["cache_write_tokens"])
        else { return nil }
        let counted = Usage(
            inputTokens: input,
            outputTokens: output,
            classes: [.cachedInput: cached, .cacheWrite: written]
        )
        return counted.isConsistent ? counted : nil
    }
}
