internal import AttestCore

/// Gemini `generateContent` / `streamGenerateContent?alt=sse`: the model in the path,
/// `generationConfig.maxOutputTokens` (thinking included) and `generationConfig.candidateCount`; usage in
/// `usageMetadata` (`promptTokenCount` + `toolUsePromptTokenCount` in, `candidatesTokenCount` +
/// `thoughtsTokenCount` out).
///
/// Google's JSON parser takes proto field names in either spelling (`generationConfig` or
/// `generation_config`), so both are read, both at once is a duplicate, and the camel-case one is written.
enum GeminiGenerate {
    static let storedContextFields = ["cachedContent", "cached_content"]

    static func prepare(
        _ request: [String: JSONValue],
        method: GeminiMethod,
        policy: DialectPolicy
    )
        throws(DialectRefusal) -> PreparedRequest
    {
        var request = request
        let model = try RequestFields.model(method.model, policy: policy)
        try RequestFields.refuse(request, storedContextFields, reason: .storedContext)
        try HostedTools.checkGemini(request)
        try MediaInputs.checkGemini(request, policy: policy)
        // The model is the path's; a body naming another one could be read instead by Google's transcoding.
        if let named = try RequestFields.string(request, "model"),
            !named.utf8.elementsEqual(model.utf8), !named.utf8.elementsEqual(("models/" + model).utf8)
        {
            throw DialectRefusal(.fieldNotAllowed, detail: "model \(named.prefix(64))")
        }
        var config = try RequestFields.object(request, field(request, "generationConfig", "generation_config"))
        request["generation_config"] = nil
        try checkServiceTier(request)
        try checkServiceTier(config)

        try RequestFields.checkSingleChoice(
            RequestFields.int(config, field(config, "candidateCount", "candidate_count")),
            field: "candidateCount"
        )
        let capField = try field(config, "maxOutputTokens", "max_output_tokens")
        let cap = policy.maxOutputTokens
        let applied = try RequestFields.lowered(RequestFields.int(config, capField), field: capField, cap: cap) ?? cap
        config["max_output_tokens"] = nil
        config["maxOutputTokens"] = .int(Int64(applied))
        // Audio and image output are billed at rates the route's text prices do not hold.
        if let modalities = config[try field(config, "responseModalities", "response_modalities")],
            modalities.arrayValue?.allSatisfy({ $0.stringValue?.uppercased() == "TEXT" }) != true
        {
            throw DialectRefusal(.premiumSwitch, detail: "responseModalities \(modalities.serialized.prefix(40))")
        }
        try clampThinkingBudget(&config, to: applied)
        request["generationConfig"] = .object(config)
        try policy.checkClosedWorld(request, GeminiShapes.request, normalize: GeminiShapes.camelCase)
        return PreparedRequest(
            body: JSONValue.object(request).serializedBytes,
            model: model,
            streams: method.streams,
            maxOutputTokens: applied
        )
    }

    /// A thinking budget above the output cap, or dynamic (`-1`: as much as the model likes), is set to the
    /// cap: the reservation holds no more thinking than that.
    static func clampThinkingBudget(_ config: inout [String: JSONValue], to cap: Int) throws(DialectRefusal) {
        let name = try field(config, "thinkingConfig", "thinking_config")
        guard config[name] != nil, config[name] != .null else { return }
        var thinking = try RequestFields.object(config, name)
        let budgetName = try field(thinking, "thinkingBudget", "thinking_budget")
        if let budget = try RequestFields.int(thinking, budgetName), budget < 0 || budget > cap {
            thinking[budgetName] = nil
            thinking["thinkingBudget"] = .int(Int64(cap))
        }
        config[name] = nil
        config["thinkingConfig"] = .object(thinking)
    }

    /// Service tiers that bill at most the standard price (`flex` is discounted); `priority` bills up to
    /// twice it. Proto enum names and their short forms are accepted by Google's parser; numbers are not
    /// read here, so they are refused too.
    static let serviceTiers: Set<String> = [
        "standard", "flex", "service_tier_standard", "service_tier_flex", "service_tier_unspecified",
    ]

    private static func checkServiceTier(_ object: [String: JSONValue]) throws(DialectRefusal) {
        for name in ["serviceTier", "service_tier"] {
            switch object[name] {
            case nil, .null?: continue
            case .string(let tier)? where serviceTiers.contains(tier.lowercased()): continue
            case let other?:
                throw DialectRefusal(.fieldNotAllowed, detail: "\(name) \(String(describing: other).prefix(32))")
            }
        }
    }

    /// Which spelling of a field the object uses (the camel-case one when neither); both is a refusal.
    private static func field(
        _ object: [String: JSONValue],
        _ camel: String,
        _ snake: String
    ) throws(DialectRefusal)
        -> String
    {
        if object[camel] != nil && object[snake] != nil {
            throw DialectRefusal(.duplicateKey, detail: "\(camel) and \(snake)")
        }
        return object[snake] != nil ? snake : camel
    }

    /// A `GenerateContentResponse` (or one streamed chunk of it).
    static func usage(_ answer: JSONValue) -> Usage? {
        guard let metadata = answer["usageMetadata"]?.objectValue,
            let prompt = TokenCount.read(metadata["promptTokenCount"]),
            let toolPrompt = TokenCount.readOptional(metadata["toolUsePromptTokenCount"]),
            let candidates = TokenCount.readOptional(metadata["candidatesTokenCount"]),
            let thoughts = TokenCount.readOptional(metadata["thoughtsTokenCount"]),
            let total = TokenCount.readOptional(metadata["totalTokenCount"])
        else { return nil }
        let (input, overflow1) = prompt.addingReportingOverflow(toolPrompt)
        let (generated, overflow2) = candidates.addingReportingOverflow(thoughts)
        guard !overflow1, !overflow2, let cached = TokenCount.readOptional(metadata["cachedContentTokenCount"]),
            let audioIn = modality("AUDIO", in: metadata["promptTokensDetails"]),
            let audioOut = modality("AUDIO", in: metadata["candidatesTokensDetails"]),
            let imageOut = modality("IMAGE", in: metadata["candidatesTokensDetails"])
        else { return nil }
        // Whatever the total holds beyond the counts we know is billed too: count it as output.
        let counted = Usage(
            inputTokens: input,
            outputTokens: max(generated, total - min(total, input)),
            classes: [.cachedInput: cached, .audioInput: audioIn, .audioOutput: audioOut, .imageOutput: imageOut]
        )
        return counted.isConsistent ? counted : nil
    }

    /// The tokens of one modality in a `…TokensDetails` list (`[{"modality":"AUDIO","tokenCount":n}]`); 0 when
    /// absent, nil when unreadable.
    static func modality(_ name: String, in details: JSONValue?) -> Int? {
        guard let details, details != .null else { return 0 }
        guard let entries = details.arrayValue, entries.count <= 16 else { return nil }
        var tokens = 0
        for entry in entries where entry["modality"]?.stringValue == name {
            guard let count = TokenCount.readOptional(entry["tokenCount"]) else { return nil }
            tokens += count
        }
        return tokens
    }

    /// Whether a chunk ends the answer: a candidate with a `finishReason`, or a blocked prompt.
    static func isFinal(_ chunk: JSONValue) -> Bool {
        if chunk["promptFeedback"]?["blockReason"]?.stringValue != nil { return true }
        return chunk["candidates"]?.arrayValue?.contains { $0["finishReason"]?.stringValue != nil } ?? false
    }
}
