/// Routes a method and a path to a target, with `{param}` path segments.
package struct Router<Target: Sendable>: Sendable {
    /// The outcome of routing one request.
    package enum Resolution {
        case matched(Target, parameters: [String: String])
        /// The path exists for other methods (answer 405 with `Allow`).
        case methodNotAllowed(allowed: [String])
        case notFound
    }

    private struct Entry: Sendable {
        var method: String
        var pattern: PathPattern
        var target: Target
    }

    /// Why a route could not be added.
    package struct RouteError: Error, Hashable {
        package let method: String
        package let pattern: String
    }

    private var entries: [Entry] = []

    package init() {}

    /// Adds a route.
    /// - Throws: `RouteError` for an invalid pattern or a second route with the same method and pattern.
    package mutating func add(_ method: String, _ pattern: String, _ target: Target) throws(RouteError) {
        let method = method.uppercased()
        guard let parsed = try? PathPattern(pattern), !method.isEmpty,
            !hasEntry(method: method, pattern: parsed.description)
        else { throw RouteError(method: method, pattern: pattern) }
        entries.append(Entry(method: method, pattern: parsed, target: target))
    }

    /// A loop, not `entries.contains(where:)`: in this unspecialized generic code, `Sequence.contains(where:)`
    /// looks up `Array`'s `Element` witness at run time, a scan of every protocol conformance record of the
    /// binary on the first call (a tenth of the cold start's instructions; docs/performance-archive.md, "Init order").
    private func hasEntry(method: String, pattern: String) -> Bool {
        for entry in entries where entry.method == method && entry.pattern.description == pattern {
            return true
        }
        return false
    }

    /// The best match for `method` and `path`: among matching patterns, the most literal one wins.
    package func resolve(method: String, path: String) -> Resolution {
        let method = method.uppercased()
        var allowed: [String] = []
        var best: (entry: Entry, parameters: [String: String])?
        for entry in entries {
            guard let parameters = entry.pattern.match(path) else { continue }
            if entry.method == method {
                if best == nil || entry.pattern.literalCount > best!.entry.pattern.literalCount {
                    best = (entry, parameters)
                }
            } else if !allowed.contains(entry.method) {
                allowed.append(entry.method)
            }
        }
        if let best { return .matched(best.entry.target, parameters: best.parameters) }
        return allowed.isEmpty ? .notFound : .methodNotAllowed(allowed: allowed.sorted())
    }
}
