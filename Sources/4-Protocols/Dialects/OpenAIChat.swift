internal import AttestCore

/// OpenAI Chat Completions (`POST /v1/chat/completions`): `model`, `max_completion_tokens` (and the
/// older `max_tokens`), `n`, `stream` + `stream_options.include_usage`; usage in
/// `usage.prompt_tokens` / `usage.completion_tokens` (reasoning tokens are completion tokens).
enum OpenAIChat {
    static func prepare(
        _ request: [String: JSONValue],
        policy: DialectPolicy
    ) throws(DialectRefusal)
        -> PreparedRequest
    {
        var request = request
        let model = try RequestFields.model(RequestFields.string(request, "model"), policy: policy)
        try RequestFields.checkSingleChoice(RequestFields.int(request, "n"), field: "n")
        try HostedTools.checkOpenAI(request)
        try MediaInputs.checkOpenAIChat(request, policy: policy)
        // Audio output is billed at audio rates the route's text prices do not hold.
        if let modalities = request["modalities"], modalities != .array([.string("text")]) {
            throw DialectRefusal(.premiumSwitch, detail: "modalities \(modalities.serialized.prefix(40))")
        }
        try policy.checkClosedWorld(request, OpenAIShapes.chat)
        try OpenAIServiceTier.pin(&request, policy: policy)
        let streams = try RequestFields.bool(request, "stream") ?? false

        // Lower each cap present; with none, set the modern one (max_tokens is not accepted by o-series).
        let cap = policy.maxOutputTokens
        var applied: Int?
        for field in ["max_completion_tokens", "max_tokens"] {
            if let lowered = try RequestFields.lowered(RequestFields.int(request, field), field: field, cap: cap) {
                request[field] = .int(Int64(lowered))
                applied = max(applied ?? 0, lowered)
            } else {
                request[field] = nil
            }
        }
        if applied == nil {
            request["max_completion_tokens"] = .int(Int64(cap))
            applied = cap
        }

        if streams {
            var options = try RequestFields.object(request, "stream_options")
            options["include_usage"] = .bool(true)
            request["stream_options"] = .object(options)
        }
        return PreparedRequest(
            body: JSONValue.object(request).serializedBytes,
            model: model,
            streams: streams,
            maxOutputTokens: applied
        )
    }

    /// A chat completion object, or the final chunk of a stream (`choices` empty, `usage` set).
    static func usage(_ answer: JSONValue) -> Usage? {
        guard let usage = answer["usage"]?.objectValue,
            let input = TokenCount.read(usage["prompt_tokens"]),
            let output = TokenCount.read(usage["completion_tokens"])
        else { return nil }
        // The details are parts of the totals: cached and written cache tokens and audio of the prompt, audio of
        // the completion (reasoning and rejected prediction tokens are output at the output price).
        let prompt = usage["prompt_tokens_details"]?.objectValue
        let completion = usage["completion_tokens_details"]?.objectValue
        guard let cached = TokenCount.readOptional(prompt?["cached_tokens"]),
            let written = TokenCount.readOptional(prompt?["cache_write_tokens"]),
            let audioIn = TokenCount.readOptional(prompt?["audio_tokens"]),
            let audioOut = TokenCount.readOptional(completion?["audio_tokens"])
        else { return nil }
        let counted = Usage(
            inputTokens: input,
            outputTokens: output,
            classes: [.cachedInput: cached, .cacheWrite: written, .audioInput: audioIn, .audioOutput: audioOut]
        )
        return counted.isConsistent ? counted : nil
    }
}

/// OpenAI's `service_tier`. Absent or `auto` uses the project's default tier, which its owner may have set to a
/// premium one, so the gate sends `default`; `flex` (discounted) passes where the route lists `service_tier` in
/// `allowFields`; `priority`, `scale` and any other tier are refused.
enum OpenAIServiceTier {
    static func pin(_ request: inout [String: JSONValue], policy: DialectPolicy) throws(DialectRefusal) {
        switch try RequestFields.string(request, "service_tier") {
        case nil, "auto", "default":
            request["service_tier"] = .string("default")
        case "flex" where policy.allowFields.contains("service_tier"):
            break
        case let tier?:
            throw DialectRefusal(.premiumSwitch, detail: "service_tier \(tier.prefix(32))")
        }
    }
}

/// Reads a reported token count: a non-negative integer, `nil` otherwise.
enum TokenCount {
    static func read(_ value: JSONValue?) -> Int? {
        guard let count = value?.intValue, count >= 0, count <= Int64(Int.max) else { return nil }
        return Int(count)
    }

    /// An optional count: absent or `null` is 0, anything but a count is `nil`.
    static func readOptional(_ value: JSONValue?) -> Int? {
        if value == nil || value == .null { return 0 }
        return read(value)
    }
}
