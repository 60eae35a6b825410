package import Dialects

/// What the gate forwards for one call and the most that call can cost (every call has a worst case the
/// gate bounds: docs/dialects.md, "The worst case of a call").
///
/// For a known dialect the body is checked and rewritten (`Dialect.prepare`: model in `models`, one
/// choice, the output cap set or lowered to `maxOutputTokens`). The worst case is then
/// `inputBound × input price + maxOutputTokens × output price`, where `inputBound` is the forwarded
/// body's byte count (every token of a byte-level tokenizer is at least one byte), or the route's declared
/// `maxInputTokens` when that is larger; media is refused unless the route declares it.
package struct CallBound: Sendable, Hashable {
    /// The bytes to forward.
    package let body: [UInt8]
    /// The model the provider will run (nil for `opaque`).
    package let model: String?
    /// Whether the provider answers with server-sent events (the gate buffers them and reads their usage).
    package var streams = false
    /// The model's prices, when the route prices it.
    package let price: ModelPrice?
    /// The input side of the worst case, in base-price tokens.
    package let inputBound: Int
    /// The output cap the forwarded request carries (nil for `opaque`).
    package let maxOutputTokens: Int?
    /// The worst case in micro-dollars; nil when it cannot be bounded (opaque, or no price for the model).
    package let worstCaseMicros: Int64?

    /// - Returns: the bound, or the dialect's refusal (the gate answers `400 invalid_request`).
    package static func prepare(_ body: [UInt8], route: MeteredRoute) -> Result<CallBound, DialectRefusal> {
        guard route.dialect.isKnown else {
            return .success(
                CallBound(
                    body: body,
                    model: nil,
                    price: nil,
                    inputBound: body.count,
                    maxOutputTokens: nil,
                    worstCaseMicros: nil
                )
            )
        }
        // Media passes only where the route declares its input bound (`maxInputTokens`).
        let policy = DialectPolicy(
            models: route.models,
            maxOutputTokens: route.maxOutputTokens ?? MeteredRoute.defaultMaxOutputTokens,
            acceptsMedia: route.maxInputTokens != nil,
            allowFields: route.allowFields
        )
        switch route.dialect.prepare(body: body, policy: policy, upstreamPath: route.upstreamPath) {
        case .failure(let refusal):
            return .failure(refusal)
        case .success(let prepared):
            let price = prepared.model.flatMap { route.prices[$0] }
            // A route that prices cache writes has them in the dearest input price: no weight on top.
            let pricesWrites = price.map { $0.classes[.cacheWrite] != nil || $0.classes[.cacheWrite1h] != nil }
            let input = prepared.inputTokenBound(maxInputTokens: route.maxInputTokens, weighted: pricesWrites != true)
            let output = prepared.maxOutputTokens ?? policy.maxOutputTokens
            var bound = CallBound(
                body: prepared.body,
                model: prepared.model,
                price: price,
                inputBound: input,
                maxOutputTokens: output,
                worstCaseMicros: price.map { Cost.worstCase(inputTokens: input, maxOutputTokens: output, price: $0) }
            )
            bound.streams = prepared.streams
            return .success(bound)
        }
    }

    /// The usage the provider reported in its (buffered) answer: the JSON body, or for a streamed call
    /// the final usage of its server-sent events; nil when there is none (the reservation is then kept).
    package func usage(in answer: [UInt8], dialect: Dialect) -> Usage? {
        guard streams else { return dialect.usage(fromAnswer: answer) }
        var stream = StreamUsage(dialect: dialect)
        stream.feed(answer)
        stream.finish()
        return stream.usage
    }

    /// What the reported usage costs, each class at its price; nil without a price.
    package func cost(of usage: Usage, dialect: Dialect) -> Cost.Priced? {
        price.map { Cost.actual(usage, price: $0, dialect: dialect) }
    }
}
