/// Request and answer bodies shaped as in each provider's API reference (field names, nesting, usage).
enum ProviderSamples {
    // OpenAI Chat Completions: create, answer, and a stream with `include_usage`.
    static let chatRequest = #"""
        {"model": "gpt-4.1", "messages": [{"role": "developer", "content": "You are a helpful assistant."},
        {"role": "user", "content": "Hello!"}], "temperature": 0.7, "metadata": {"app": "flashcards"}}
        """#
    static let chatAnswer = #"""
        {"id": "chatcmpl-B9MBs8CjcvOU2jLn4n570S5qMJKcT", "object": "chat.completion", "created": 1741569952,
         "model": "gpt-4.1-2025-04-14", "choices": [{"index": 0, "message": {"role": "assistant",
         "content": "Hello! How can I assist you today?", "refusal": null, "annotations": []}, "logprobs": null,
         "finish_reason": "stop"}], "usage": {"prompt_tokens": 19, "completion_tokens": 10, "total_tokens": 29,
         "prompt_tokens_details": {"cached_tokens": 0, "audio_tokens": 0}, "completion_tokens_details":
         {"reasoning_tokens": 0, "audio_tokens": 0, "accepted_prediction_tokens": 0,
         "rejected_prediction_tokens": 0}}, "service_tier": "default"}
        """#
    static let chatStream = """
        data: {"id":"chatcmpl-123","object":"chat.completion.chunk","created":1694268190,"model":"gpt-4o-mini",\
        "system_fingerprint":"fp_44709d6fcb","choices":[{"index":0,"delta":{"role":"assistant","content":""},\
        "logprobs":null,"finish_reason":null}],"usage":null}

        data: {"id":"chatcmpl-123","object":"chat.completion.chunk","created":1694268190,"model":"gpt-4o-mini",\
        "choices":[{"index":0,"delta":{"content":"Hello"},"logprobs":null,"finish_reason":null}],"usage":null}

        data: {"id":"chatcmpl-123","object":"chat.completion.chunk","created":1694268190,"model":"gpt-4o-mini",\
        "choices":[{"index":0,"delta":{},"logprobs":null,"finish_reason":"stop"}],"usage":null}

        data: {"id":"chatcmpl-123","object":"chat.completion.chunk","created":1694268190,"model":"gpt-4o-mini",\
        "choices":[],"usage":{"prompt_tokens":9,"completion_tokens":12,"total_tokens":21,\
        "completion_tokens_details":{"reasoning_tokens":0}}}

        data: [DONE]


        """

    // OpenAI Responses.
    static let responsesRequest = #"""
        {"model": "gpt-4.1", "input": "Tell me a three sentence bedtime story about a unicorn.",
         "instructions": "Talk like a pirate.", "store": false}
        """#
    static let responsesAnswer = #"""
        {"id": "resp_67ccd2bed1ec8190b14f964abc0542670bb6a6b452d3795b", "object": "response",
         "created_at": 1741476542, "status": "completed", "error": null, "incomplete_details": null,
         "instructions": null, "max_output_tokens": null, "model": "gpt-4.1-2025-04-14", "output": [{"type":
         "message", "id": "msg_67ccd2bf17f0819081ff3bb2cf6508e60bb6a6b452d3795b", "status": "completed", "role":
         "assistant", "content": [{"type": "output_text", "text": "In a peaceful grove beneath a silver moon...",
         "annotations": []}]}], "parallel_tool_calls": true, "previous_response_id": null, "reasoning":
         {"effort": null, "summary": null}, "store": true, "temperature": 1.0, "text": {"format": {"type":
         "text"}}, "tool_choice": "auto", "tools": [], "top_p": 1.0, "truncation": "disabled", "usage":
         {"input_tokens": 36, "input_tokens_details": {"cached_tokens": 0}, "output_tokens": 87,
         "output_tokens_details": {"reasoning_tokens": 0}, "total_tokens": 123}, "user": null, "metadata": {}}
        """#
    static let responsesStream = """
        event: response.created
        data: {"type":"response.created","sequence_number":0,"response":{"id":"resp_67c9fdcecf488190bdd9a0409de3a1ec\
        07b8b0ad4e5eb654","object":"response","created_at":1741290958,"status":"in_progress","model":"gpt-4.1-2025-\
        04-14","output":[],"usage":null}}

        event: response.output_text.delta
        data: {"type":"response.output_text.delta","sequence_number":4,"item_id":"msg_67c9fdcf37fc8190ba82116e33fb2\
        8c507b8b0ad4e5eb654","output_index":0,"content_index":0,"delta":"Hi"}

        event: response.completed
        data: {"type":"response.completed","sequence_number":8,"response":{"id":"resp_67c9fdcecf488190bdd9a0409de3a\
        1ec07b8b0ad4e5eb654","object":"response","created_at":1741290958,"status":"completed","model":"gpt-4.1-2025-\
        04-14","output":[{"id":"msg_67c9fdcf37fc8190ba82116e33fb28c507b8b0ad4e5eb654","type":"message","status":\
        "completed","role":"assistant","content":[{"type":"output_text","text":"Hi there! How can I assist you \
        today?","annotations":[]}]}],"usage":{"input_tokens":37,"output_tokens":11,"output_tokens_details":\
        {"reasoning_tokens":0},"total_tokens":48}}}


        """

    // Anthropic Messages.
    static let anthropicRequest = #"""
        {"model": "claude-sonnet-4-5", "max_tokens": 1024, "system": "You are a tutor.",
         "messages": [{"role": "user", "content": "Hello, world"}]}
        """#
    static let anthropicAnswer = #"""
        {"id": "msg_013Zva2CMHLNnXjNJJKqJ2EF", "type": "message", "role": "assistant", "model":
         "claude-sonnet-4-5-20250929", "content": [{"type": "text", "text": "Hi! My name is Claude."}],
         "stop_reason": "end_turn", "stop_sequence": null, "usage": {"input_tokens": 2095, "output_tokens": 503,
         "cache_creation_input_tokens": 100, "cache_read_input_tokens": 1000}}
        """#
    static let anthropicStream = """
        event: message_start
        data: {"type": "message_start", "message": {"id": "msg_1nZdL29xx5MUA1yADyHTEsnR8uuvGzszyY", "type": \
        "message", "role": "assistant", "content": [], "model": "claude-sonnet-4-5-20250929", "stop_reason": null, \
        "stop_sequence": null, "usage": {"input_tokens": 25, "cache_creation_input_tokens": 0, \
        "cache_read_input_tokens": 0, "output_tokens": 1}}}

        event: content_block_start
        data: {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}

        event: ping
        data: {"type": "ping"}

        event: content_block_delta
        data: {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "Hello"}}

        event: content_block_stop
        data: {"type": "content_block_stop", "index": 0}

        event: message_delta
        data: {"type": "message_delta", "delta": {"stop_reason": "end_turn", "stop_sequence":null}, \
        "usage": {"output_tokens": 15}}

        event: message_stop
        data: {"type": "message_stop"}


        """

    // Gemini generateContent (the model is in the path).
    static let geminiPath = "/v1beta/models/gemini-2.5-flash:generateContent"
    static let geminiStreamPath = "/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse"
    static let geminiRequest = #"""
        {"contents": [{"parts": [{"text": "Explain how AI works in a few words"}]}], "generationConfig":
         {"stopSequences": ["Title"], "temperature": 1.0, "topP": 0.8, "topK": 10}}
        """#
    static let geminiAnswer = #"""
        {"candidates": [{"content": {"parts": [{"text": "AI learns patterns from data to make predictions.\n"}],
         "role": "model"}, "finishReason": "STOP", "index": 0}], "usageMetadata": {"promptTokenCount": 8,
         "candidatesTokenCount": 12, "totalTokenCount": 970, "thoughtsTokenCount": 950, "promptTokensDetails":
         [{"modality": "TEXT", "tokenCount": 8}]}, "modelVersion": "gemini-2.5-flash",
         "responseId": "mAitaLmkHPPlz7IPvtfUqQ4"}
        """#
    /// Gemini separates events with CRLF.
    static let geminiStream =
        "data: {\"candidates\": [{\"content\": {\"parts\": [{\"text\": \"AI\"}],\"role\": \"model\"},\"index\": 0}],"
        + "\"usageMetadata\": {\"promptTokenCount\": 8,\"totalTokenCount\": 8},\"modelVersion\": \"gemini-2.5-flash\"}"
        + "\r\n\r\n"
        + "data: {\"candidates\": [{\"content\": {\"parts\": [{\"text\": \" learns patterns.\"}],\"role\": \"model\"},"
        + "\"finishReason\": \"STOP\",\"index\": 0}],\"usageMetadata\": {\"promptTokenCount\": 8,"
        + "\"candidatesTokenCount\": 12,\"totalTokenCount\": 40,\"thoughtsTokenCount\": 20},"
        + "\"modelVersion\": \"gemini-2.5-flash\"}\r\n\r\n"
}
