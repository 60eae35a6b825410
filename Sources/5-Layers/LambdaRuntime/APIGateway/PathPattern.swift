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
        if let segments = Self.asciiSegments(text) {
            self.segments = try segments.get()
        } else {
            self.segments = try Self.segments(text)
        }
        self.description = text
    }

    /// The rule of `init` on Characters: for patterns with non-ASCII text.
    private static func segments(_ text: String) throws(InvalidPattern) -> [Segment] {
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
        return segments
    }

    /// The same rule on bytes, for all-ASCII patterns (every configured route in practice): for ASCII,
    /// Characters are bytes, so the result is the same, without the Unicode tables the Character path
    /// touches at cold start (docs/performance.md). Nil when the text is not all ASCII.
    private static func asciiSegments(_ text: String) -> Result<[Segment], InvalidPattern>? {
        let bytes = Array(text.utf8)
        guard bytes.allSatisfy({ $0 < 0x80 }) else { return nil }
        let slash = UInt8(ascii: "/")
        let open = UInt8(ascii: "{")
        let close = UInt8(ascii: "}")
        guard bytes.first == slash, !bytes.contains(UInt8(ascii: "?")), !bytes.contains(UInt8(ascii: "#")) else {
            return .failure(InvalidPattern(pattern: text))
        }
        var segments: [Segment] = []
        var names: [String] = []
        let parts = bytes.count == 1 ? [] : bytes.dropFirst().split(separator: slash, omittingEmptySubsequences: false)
        for part in parts {
            guard !part.isEmpty else { return .failure(InvalidPattern(pattern: text)) }
            if part.contains(open) || part.contains(close) {
                let name = part.dropFirst().dropLast()
                guard part.first == open, part.last == close, !name.isEmpty,
                    name.allSatisfy({ isNameByte($0) })
                else { return .failure(InvalidPattern(pattern: text)) }
                let parameter = String(decoding: name, as: UTF8.self)
                guard !names.contains(parameter) else { return .failure(InvalidPattern(pattern: text)) }
                names.append(parameter)
                segments.append(.parameter(parameter))
            } else {
                segments.append(.literal(String(decoding: part, as: UTF8.self)))
            }
        }
        return .success(segments)
    }

    /// A letter, digit or `_` (ASCII).
    private static func isNameByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"):
            true
        default: false
        }
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
