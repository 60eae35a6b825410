/// A class of tokens a provider bills at its own price (docs/dialects.md, "Prices per token class"). The
/// tokens of a class are part of a usage's input or output total; those of no class are text, at the model's
/// `inputPerMTok` and `outputPerMTok`.
package enum TokenClass: String, Sendable, Hashable, CaseIterable {
    /// Input read from the provider's prompt cache (OpenAI `cached_tokens`, Anthropic `cache_read_input_tokens`,
    /// Gemini `cachedContentTokenCount`): cheaper than input, so the input price when the route gives none.
    case cachedInput = "cached_input"
    /// Input written to the prompt cache: OpenAI's newest models (`cache_write_tokens`, 1.25× input) and
    /// Anthropic's 5-minute cache (`ephemeral_5m_input_tokens`, 1.25× input).
    case cacheWrite = "cache_write"
    /// Anthropic's 1-hour cache writes (`ephemeral_1h_input_tokens`, 2× input); also every write whose TTL the
    /// usage does not say.
    case cacheWrite1h = "cache_write_1h"
    /// Audio input (OpenAI `prompt_tokens_details.audio_tokens`, Gemini `promptTokensDetails` `AUDIO`).
    case audioInput = "audio_input"
    /// Audio output (OpenAI `completion_tokens_details.audio_tokens`, Gemini `candidatesTokensDetails` `AUDIO`).
    case audioOutput = "audio_output"
    /// Image output (Gemini `candidatesTokensDetails` `IMAGE`).
    case imageOutput = "image_output"

    /// Whether the class is part of the output total (else of the input total).
    package var isOutput: Bool { self == .audioOutput || self == .imageOutput }

    /// Its key in a route's `prices` entry.
    package var priceKey: String {
        switch self {
        case .cachedInput: "cachedInputPerMTok"
        case .cacheWrite: "cacheWritePerMTok"
        case .cacheWrite1h: "cacheWrite1hPerMTok"
        case .audioInput: "audioInputPerMTok"
        case .audioOutput: "audioOutputPerMTok"
        case .imageOutput: "imageOutputPerMTok"
        }
    }
}
