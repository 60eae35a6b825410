/// The closed world of the two OpenAI dialects (docs/dialects.md, "openai-chat" and "openai-responses"): the
/// request fields of OpenAI's API reference as its SDK types list them (openai/openai-python,
/// `types/chat/completion_create_params.py`, `types/responses/response_create_params.py` and the item and part
/// types, read 2026-12-06), less those that bill beyond the body and its output cap: audio output
/// (`modalities`, `audio`), `prediction`, `prompt_cache_options` and `prompt_cache_breakpoint` (cache writes at
/// 1.25× input), `moderation`, `background`, `context_management`, the `reasoning.mode` passes, hosted tools and
/// their items, and stored context (refused before, with their own reasons).
enum OpenAIShapes {
    static let chat: RequestShape = .fields(
        [
            "model", "max_completion_tokens", "max_tokens", "n", "stream", "temperature", "top_p", "stop", "seed",
            "presence_penalty", "frequency_penalty", "logit_bias", "logprobs", "top_logprobs", "response_format",
            "tool_choice", "parallel_tool_calls", "functions", "function_call", "metadata", "user",
            "safety_identifier", "prompt_cache_key", "prompt_cache_retention", "store", "reasoning_effort", "verbosity",
            "service_tier", "modalities",
        ],
        .field,
        [
            "messages": .array(chatMessage),
            "stream_options": .fields(["include_usage", "include_obfuscation"], .config),
            "tools": .array(functionOrCustomTool(nested: true)),
        ]
    )

    static let chatMessage: RequestShape = .tagged(
        "role",
        [
            "system": .fields(["role", "name"], .config, ["content": .textOr(.array(textPart))]),
            "developer": .fields(["role", "name"], .config, ["content": .textOr(.array(textPart))]),
            "user": .fields(["role", "name"], .config, ["content": .textOr(.array(chatUserPart))]),
            "assistant": .fields(
                ["role", "name", "refusal", "function_call"],
                .config,
                [
                    "content": .textOr(.array(assistantPart)),
                    "tool_calls": .array(
                        .tagged(
                            "type",
                            [
                                "function": .fields(["id", "type", "function"], .config),
                                "custom": .fields(["id", "type", "custom"], .config),
                            ],
                            .part,
                            untagged: nil
                        )
                    ),
                ]
            ),
            "tool": .fields(["role", "tool_call_id"], .config, ["content": .textOr(.array(textPart))]),
            "function": .fields(["role", "name", "content"], .config),
        ],
        .part,
        untagged: nil
    )

    static let textPart: RequestShape = .tagged(
        "type",
        ["text": .fields(["type", "text"], .config)],
        .part,
        untagged: nil
    )

    /// Media parts are refused before, unless the route declares `maxInputTokens` (`MediaInputs`).
    static let chatUserPart: RequestShape = .tagged(
        "type",
        [
            "text": .fields(["type", "text"], .config),
            "image_url": .fields(["type", "image_url"], .config),
            "input_audio": .fields(["type", "input_audio"], .config),
            "file": .fields(["type", "file"], .config),
        ],
        .part,
        untagged: nil
    )

    static let assistantPart: RequestShape = .tagged(
        "type",
        ["text": .fields(["type", "text"], .config), "refusal": .fields(["type", "refusal"], .config)],
        .part,
        untagged: nil
    )

    /// Functions the app runs itself: `function` (Chat nests the definition, Responses does not) and `custom`.
    static func functionOrCustomTool(nested: Bool) -> RequestShape {
        .tagged(
            "type",
            nested
                ? [
                    "function": .fields(["type", "function"], .config),
                    "custom": .fields(["type", "custom"], .config),
                ]
                : [
                    "function": .fields(["type", "name", "description", "parameters", "strict"], .config),
                    "custom": .fields(["type", "name", "description", "format"], .config),
                ],
            .part,
            untagged: nil
        )
    }

    static let responses: RequestShape = .fields(
        [
            "model", "instructions", "max_output_tokens", "stream", "temperature", "top_p", "top_logprobs",
            "tool_choice", "parallel_tool_calls", "max_tool_calls", "include", "truncation", "metadata", "user",
            "safety_identifier", "prompt_cache_key", "prompt_cache_retention", "store", "service_tier",
        ],
        .field,
        [
            "input": .textOr(.array(responsesItem)),
            "stream_options": .fields(["include_obfuscation"], .config),
            "text": .fields(["format", "verbosity"], .config),
            "tools": .array(functionOrCustomTool(nested: false)),
            // `mode` (multi-pass "pro" reasoning) is not listed: its passes are not known to stay in the cap.
            "reasoning": .fields(["effort", "summary", "generate_summary", "context"], .config),
        ]
    )

    static let responsesMessage: RequestShape = .fields(
        ["type", "role", "id", "status"],
        .config,
        ["content": .textOr(.array(responsesPart))]
    )

    static let responsesItem: RequestShape = .tagged(
        "type",
        [
            "message": responsesMessage,
            "function_call": .fields(["type", "id", "call_id", "name", "arguments", "status"], .config),
            "function_call_output": .fields(["type", "id", "call_id", "output", "status"], .config),
            "custom_tool_call": .fields(["type", "id", "call_id", "name", "input"], .config),
            "custom_tool_call_output": .fields(["type", "id", "call_id", "output"], .config),
            "reasoning": .fields(["type", "id", "summary", "encrypted_content", "content", "status"], .config),
        ],
        .part,
        untagged: responsesMessage
    )

    static let responsesPart: RequestShape = .tagged(
        "type",
        [
            "input_text": .fields(["type", "text"], .config),
            "input_image": .fields(["type", "image_url", "file_id", "detail"], .config),
            "input_file": .fields(["type", "file_id", "file_data", "file_url", "filename"], .config),
            "input_audio": .fields(["type", "input_audio"], .config),
            "output_text": .fields(["type", "text", "annotations", "logprobs"], .config),
            "refusal": .fields(["type", "refusal"], .config),
        ],
        .part,
        untagged: nil
    )
}
