/// A route path such as `/v1/tutor/{deckId}/{cardId}`: literal segments and `{name}` parameters,
/// matched segment by segment (a parameter matches exactly one non-empty segment).
package struct PathPattern: Sendable, Hashable, CustomStringConvertible {
    enum Segment: Sendable, Hashable {
        case literal(String)
        case parameter(String)
    }

    /// Why a pattern was refused.
    package struct InvalidPattern: Error, Hashable {
        package let pattern: String
    }

    let segments: [Segment]
    package let description: String

    /// - Throws: `InvalidPattern` unless the text starts with `/`, has no empty segment (except the root
    ///   `/`), and every `{name}` is a distinct name of letters, digits and `_`.
    package init(_ text: String) throws(InvalidPattern) {
        guard text.hasPrefix("/"), !text.contains("?"), !text.contains("#") else { throw InvalidPattern(pattern: text) }
        var segments: [Segment] = []
        var names = Set<String>()
        let parts = text == "/" ? [] : text.dropFirst().split(separator: "/", omittingEmptySubsequences: false)
        for part in parts {
            guard !part.isEmpty else { throw InvalidPattern(pattern: text) }
            if part.hasPrefix("{") || part.hasSuffix("}") || part.contains("{") || part.contains("}") {
                let name = part.dropFirst().dropLast()
                guard part.hasPrefix("{"), part.hasSuffix("}"), !name.isEmpty,
                    name.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_") }),
                    names.insert(String(name)).inserted
                else { throw InvalidPattern(pattern: text) }
                segments.append(.parameter(String(name)))
            } else {
                segments.append(.literal(String(part)))
            }
        }
        self.segments = segments
        self.description = text
    }

    /// The parameters when `path` matches; nil otherwise.
    package func match(_ path: String) -> [String: String]? {
        guard path.hasPrefix("/") else { return nil }
        let parts = path == "/" ? [] : path.dropFirst().split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == segments.count else { return nil }
        var parameters: [String: String] = [:]
        for (segment, part) in zip(segments, parts) {
            switch segment {
            case .literal(let literal):
                guard part == literal else { return nil }
            case .parameter(let name):
                guard !part.isEmpty else { return nil }
                parameters[name] = String(part)
            }
        }
        return parameters
    }

    /// How many literal segments: a more literal pattern wins over a more general one.
    var literalCount: Int { segments.count { if case .literal = $0 { true } else { false } } }

    /// Replaces each `{name}` with `parameters[name]` (the upstream path of a metered route).
    package func expand(_ parameters: [String: String]) -> String {
        guard !segments.isEmpty else { return "/" }
        return segments.map { segment in
            switch segment {
            case .literal(let literal): "/" + literal
            case .parameter(let name): "/" + (parameters[name] ?? "")
            }
        }.joined()
    }
}
