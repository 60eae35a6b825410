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
        if case .array(let items)? = request["input"],
            items.contains(where: { $0["type"] == .string("item_reference") })
        {
            throw DialectRefusal(.storedContext, detail: "input item_reference")
        }
        try OpenAIServiceTier.check(request)
        try HostedTools.checkOpenAI(request)
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

    /// A response object.
    static func usage(_ response: JSONValue) -> Usage? {
        guard let usage = response["usage"]?.objectValue,
            let input = TokenCount.read(usage["input_tokens"]),
            let output = TokenCount.read(usage["output_tokens"])
        else { return nil }
        return Usage(inputTokens: input, outputTokens: output)
    }
}
