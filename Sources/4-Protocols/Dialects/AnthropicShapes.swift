/// The closed world of `anthropic-messages` (docs/dialects.md): the Messages API's request fields as
/// anthropics/anthropic-sdk-python lists them (`types/message_create_params.py` and the block types, read
/// 2026-12-06), less what bills beyond the body and `max_tokens`: `speed` other than `standard` (fast mode,
/// 2× to 12×, refused in `AnthropicMessages`), `fallbacks` (other models), `context_management` (compaction
/// passes), `container` and `mcp_servers` (hosted execution), server-tool result blocks, and the hosted tools
/// (refused before, `HostedTools`).
enum AnthropicShapes {
    static let request: RequestShape = .fields(
        [
            "model", "max_tokens", "stop_sequences", "temperature", "top_k", "top_p", "stream", "tool_choice",
            "service_tier", "inference_geo", "speed", "output_config", "output_format",
        ],
        .field,
        [
            "messages": .array(.fields(["role"], .config, ["content": .textOr(.array(block))])),
            "system": .textOr(.array(block)),
            "tools": .array(
                .tagged(
                    "type",
                    ["custom": .fields(["type", "name", "description", "input_schema", "cache_control"], .config)],
                    .part,
                    untagged: .fields(["name", "description", "input_schema", "cache_control"], .config)
                )
            ),
            "thinking": .fields(["type", "budget_tokens", "display"], .config),
            "metadata": .fields(["user_id"], .config),
        ]
    )

    /// Content blocks; media (`image`, `document`) is refused before unless the route declares
    /// `maxInputTokens` (`MediaInputs`).
    static let block: RequestShape = .tagged(
        "type",
        [
            "text": .fields(["type", "text", "cache_control", "citations"], .config),
            "image": .fields(["type", "source", "cache_control"], .config),
            "document": .fields(["type", "source", "title", "context", "citations", "cache_control"], .config),
            "search_result": .fields(["type", "source", "title", "content", "citations", "cache_control"], .config),
            "tool_use": .fields(["type", "id", "name", "input", "cache_control"], .config),
            "tool_result": .fields(["type", "tool_use_id", "content", "is_error", "cache_control"], .config),
            "thinking": .fields(["type", "thinking", "signature"], .config),
            "redacted_thinking": .fields(["type", "data"], .config),
        ],
        .part,
        untagged: nil
    )
}
