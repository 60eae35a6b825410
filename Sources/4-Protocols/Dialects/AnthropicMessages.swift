internal import AttestCore

/// Anthropic Messages (`POST /v1/messages`): `model`, `max_tokens` (required; thinking included),
/// `stream`; no choice count. Usage in `usage.input_tokens` / `usage.output_tokens`, with prompt-cache
/// tokens apart (`cache_creation_input_tokens`, `cache_read_input_tokens`); streamed in `message_start`
/// (input) and `message_delta` (cumulative).
enum AnthropicMessages {
    /// A cache write costs up to twice the base input price (1-hour cache), a read a tenth of it; both
    /// are counted in base-price tokens at no less than they cost (docs/dialects.md).
    static let cacheWriteWeight = 2

    /// With tools, Anthropic adds a tool-use system prompt of a few hundred tokens (346 to 530 in its
    /// pricing table) that the body does not carry.
    static let toolUseOverhead = 1024

    static func prepare(
        _ request: [String: JSONValue],
        policy: DialectPolicy
    ) throws(DialectRefusal)
        -> PreparedRequest
    {
        var request = request
        let model = try RequestFields.model(RequestFields.string(request, "model"), policy: policy)
        try HostedTools.checkAnthropic(request)
        try MediaInputs.checkAnthropic(request, policy: policy)
        // `inference_geo: "us"` bills 1.1× every token category; the default (`global`) the list price.
        if let geo = try RequestFields.string(request, "inference_geo"), geo != "global" {
            throw DialectRefusal(.fieldNotAllowed, detail: "inference_geo \(geo.prefix(32))")
        }
        // Fast mode bills every token at a multiple of the standard price (2× to 12× by model).
        if let speed = try RequestFields.string(request, "speed"), speed != "standard" {
            throw DialectRefusal(.premiumSwitch, detail: "speed \(speed.prefix(32))")
        }
        try policy.checkClosedWorld(request, AnthropicShapes.request)
        let streams = try RequestFields.bool(request, "stream") ?? false
        let cap = policy.maxOutputTokens
        let applied = try RequestFields.lowered(RequestFields.int(request, "max_tokens"), field: "max_tokens", cap: cap)
        request["max_tokens"] = .int(Int64(applied ?? cap))
        try fitThinkingBudget(&request, below: applied ?? cap)
        let writesCache = RequestFields.containsKey("cache_control", in: .object(request))
        return PreparedRequest(
            body: JSONValue.object(request).serializedBytes,
            model: model,
            streams: streams,
            maxOutputTokens: applied ?? cap,
            inputTokenWeight: writesCache ? cacheWriteWeight : 1,
            inputTokenOverhead: request["tools"]?.arrayValue?.isEmpty == false ? toolUseOverhead : 0
        )
    }

    /// Anthropic refuses `thinking.budget_tokens` not below `max_tokens`: a budget the lowered cap no longer
    /// leaves room for is lowered under it, while the 1,024-token minimum allows (otherwise Anthropic's
    /// own refusal, unbilled, stands).
    static let minimumThinkingBudget = 1024

    private static func fitThinkingBudget(_ request: inout [String: JSONValue], below cap: Int) throws(DialectRefusal) {
        guard request["thinking"] != nil, request["thinking"] != .null else { return }
        var thinking = try RequestFields.object(request, "thinking")
        guard let budget = try RequestFields.int(thinking, "budget_tokens"), budget >= cap,
            cap - 1 >= minimumThinkingBudget
        else { return }
        thinking["budget_tokens"] = .int(Int64(cap - 1))
        request["thinking"] = .object(thinking)
    }

    /// A message object's `usage` (or a stream's, once merged). `input_tokens` excludes the cache's tokens:
    /// the total adds the writes and the reads, and the classes say which is which. Writes are split by TTL
    /// where `cache_creation` says it; a write whose TTL it does not say is counted as the dearer 1-hour one.
    static func usage(_ usage: [String: JSONValue]) -> Usage? {
        guard let input = TokenCount.read(usage["input_tokens"]),
            let output = TokenCount.read(usage["output_tokens"]),
            let written = TokenCount.readOptional(usage["cache_creation_input_tokens"]),
            let read = TokenCount.readOptional(usage["cache_read_input_tokens"])
        else { return nil }
        let byTTL = usage["cache_creation"]?.objectValue
        guard let fiveMinutes = TokenCount.readOptional(byTTL?["ephemeral_5m_input_tokens"]),
            let oneHour = TokenCount.readOptional(byTTL?["ephemeral_1h_input_tokens"])
        else { return nil }
        let (sum1, overflow1) = input.addingReportingOverflow(written)
        let (total, overflow2) = sum1.addingReportingOverflow(read)
        guard !overflow1, !overflow2, fiveMinutes <= written else { return nil }
        let counted = Usage(
            inputTokens: total,
            outputTokens: output,
            classes: [.cachedInput: read, .cacheWrite: fiveMinutes, .cacheWrite1h: written - fiveMinutes]
        )
        _ = oneHour  // read for its shape; the rest of the writes are counted as 1-hour ones either way
        return counted.isConsistent ? counted : nil
    }
}
