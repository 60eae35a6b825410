/// The closed world of `gemini-generate` (docs/dialects.md): `GenerateContentRequest` as googleapis/python-genai
/// names its REST fields (`types.py`, `models.py`'s converters, read 2026-12-06), in camel case (Google's parser
/// takes snake case too: `GeminiShapes.camelCase`), less what bills beyond the body and `maxOutputTokens`: audio
/// and image output (`speechConfig`, `imageConfig`; `responseModalities` other than text is refused in
/// `GeminiGenerate`), automatic model choice (`routingConfig`, `modelSelectionConfig`), `modelArmorConfig`,
/// server-side tool parts, hosted tools and cached content (refused before, with their own reasons).
enum GeminiShapes {
    static let content: RequestShape = .fields(["role"], .config, ["parts": .array(part)])

    static let part: RequestShape = .fields(
        [
            "text", "inlineData", "fileData", "functionCall", "functionResponse", "thought", "thoughtSignature",
            "videoMetadata",
        ],
        .part
    )

    static let request: RequestShape = .fields(
        ["model", "safetySettings", "labels", "serviceTier"],
        .field,
        [
            "contents": .array(content),
            "systemInstruction": content,
            "tools": .array(.fields(["functionDeclarations"], .part)),
            "toolConfig": .fields(["functionCallingConfig"], .config),
            "generationConfig": .fields(
                [
                    "temperature", "topP", "topK", "candidateCount", "maxOutputTokens", "stopSequences",
                    "responseMimeType", "responseSchema", "responseJsonSchema", "presencePenalty", "frequencyPenalty",
                    "seed", "responseLogprobs", "logprobs", "mediaResolution", "responseModalities", "serviceTier",
                ],
                .config,
                ["thinkingConfig": .fields(["thinkingBudget", "includeThoughts", "thinkingLevel"], .config)]
            ),
        ]
    )

    /// `generation_config` → `generationConfig`: the camel-case spelling of a proto field name.
    static func camelCase(_ name: String) -> String {
        guard name.contains("_") else { return name }
        var out = ""
        var upper = false
        for character in name {
            if character == "_" {
                upper = true
            } else {
                out.append(upper ? Character(character.uppercased()) : character)
                upper = false
            }
        }
        return out
    }
}
