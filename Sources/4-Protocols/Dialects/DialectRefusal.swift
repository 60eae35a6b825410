/// Why a known dialect refused a request body (the gate answers `400 {"error":"invalid_request"}`).
///
/// Equality uses only `reason`; `detail` (which field) is for logs and never reaches the client.
package struct DialectRefusal: Error, Hashable, CustomStringConvertible {
    /// A bounded reason slug, safe for logs and metrics.
    package struct Reason: Hashable, Sendable, CustomStringConvertible {
        package let slug: String
        private init(_ slug: String) { self.slug = slug }
        package var description: String { slug }

        /// The body is not JSON (syntax, encoding, or nesting too deep).
        package static let malformedBody = Reason("dialect.malformed_body")
        /// The body is JSON but not an object.
        package static let bodyNotObject = Reason("dialect.body_not_object")
        /// The same key twice in one object, which providers and our parser could resolve differently.
        package static let duplicateKey = Reason("dialect.duplicate_key")
        /// A field the gate reads has the wrong type or an impossible value.
        package static let fieldInvalid = Reason("dialect.field_invalid")
        /// The request names no model.
        package static let modelMissing = Reason("dialect.model_missing")
        /// The model is not in the route's `models`.
        package static let modelNotAllowed = Reason("dialect.model_not_allowed")
        /// More than one choice or candidate (`n`, `candidateCount`).
        package static let severalChoices = Reason("dialect.several_choices")
        /// The request draws on context stored at the provider (`previous_response_id`, `conversation`,
        /// `prompt`, `cachedContent`), which the body's size does not bound.
        package static let storedContext = Reason("dialect.stored_context")
        /// A field that makes the provider bill beyond what the gate can bound (a priority `service_tier`,
        /// Anthropic's `inference_geo`, a Gemini body `model` other than the path's).
        package static let fieldNotAllowed = Reason("dialect.field_not_allowed")
        /// Media (an image, audio, video, a PDF or another file, inline or by URL or file id) on a route that
        /// does not declare `maxInputTokens`: its tokens are not bounded by the body's bytes.
        package static let mediaInput = Reason("dialect.media_input")
        /// A tool the provider runs itself (web search, code execution, remote MCP), billed per use and
        /// feeding input the body does not bound.
        package static let hostedTool = Reason("dialect.hosted_tool")
        /// A top-level field outside the dialect's closed world (docs/dialects.md) and the route's `allowFields`.
        package static let unknownField = Reason("dialect.unknown_field")
        /// A member of a nested configuration object the gate does not know (`generationConfig.speechConfig`,
        /// `reasoning.mode`, an assistant message's `audio`, …).
        package static let unknownConfig = Reason("dialect.unknown_config")
        /// A message, content part, input item, content block or tool of a type the gate does not know.
        package static let unknownPart = Reason("dialect.unknown_part")
        /// A premium switch: a service tier above the standard price, Anthropic's fast `speed`, or an output
        /// modality other than text (audio, image), each billed above the route's text prices.
        package static let premiumSwitch = Reason("dialect.premium_switch")
        /// On a template route, the body is not `{"variables": {…}}` (docs/dialects.md, "Template routes").
        package static let templateBody = Reason("dialect.template_body")
        /// On a template route, a variable is missing, unknown, of the wrong type, too long or not allowed.
        package static let templateVariable = Reason("dialect.template_variable")
        /// The upstream path is not a Gemini `models/{model}:generateContent` method.
        package static let pathInvalid = Reason("dialect.path_invalid")
    }

    package let reason: Reason
    package let detail: String

    package init(_ reason: Reason, detail: String = "") {
        self.reason = reason
        self.detail = detail
    }

    package static func == (lhs: DialectRefusal, rhs: DialectRefusal) -> Bool { lhs.reason == rhs.reason }
    package func hash(into hasher: inout Hasher) { hasher.combine(reason) }
    package var description: String { detail.isEmpty ? reason.slug : "\(reason.slug): \(detail)" }
}
