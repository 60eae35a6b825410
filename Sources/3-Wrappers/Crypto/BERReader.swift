/// A small BER reader for the outer layers of a PKCS#7 `SignedData`, which Apple encodes with indefinite
/// lengths (`SignedData+Keyless.swift`).
///
/// Reads one tag-length-value at a time. Tags in one byte only; definite lengths of up to three bytes
/// (any form BER allows); indefinite lengths on constructed elements, ended by an end-of-contents pair,
/// nested at most `maxDepth` deep. Not a general ASN.1 parser: callers check tags and shapes.
struct BERReader {
    struct Element {
        let tag: UInt8
        /// The contents, without the end-of-contents pair of an indefinite length.
        let value: ArraySlice<UInt8>
        /// The whole element: tag, length, contents (and end-of-contents).
        let encoded: ArraySlice<UInt8>
    }

    /// Nesting of indefinite lengths we follow; Apple's receipts use five.
    static let maxDepth = 12

    private let bytes: ArraySlice<UInt8>
    private var offset: Int

    init(_ bytes: ArraySlice<UInt8>) {
        self.bytes = bytes
        self.offset = bytes.startIndex
    }

    var isAtEnd: Bool { offset == bytes.endIndex }

    /// Reads the next element; nil when the input is malformed (truncated, a multi-byte tag, an
    /// end-of-contents pair where an element should be, nesting beyond `maxDepth`).
    mutating func next() -> Element? {
        guard let (element, end) = Self.element(in: bytes, at: offset, depth: 0) else { return nil }
        offset = end
        return element
    }

    /// Reads the next element and requires `tag`; returns its contents.
    mutating func next(tag: UInt8) -> ArraySlice<UInt8>? {
        guard let element = next(), element.tag == tag else { return nil }
        return element.value
    }

    /// The element starting at `start` and the index just after it.
    private static func element(in bytes: ArraySlice<UInt8>, at start: Int, depth: Int) -> (Element, Int)? {
        let end = bytes.endIndex
        guard end - start >= 2, depth <= maxDepth else { return nil }
        let tag = bytes[start]
        guard tag != 0, tag & 0x1f != 0x1f else { return nil }  // end-of-contents, or a multi-byte tag
        let first = Int(bytes[start + 1])
        var header = 2
        if first == 0x80 {
            // Indefinite: only for constructed encodings; children until the end-of-contents pair.
            guard tag & 0x20 != 0 else { return nil }
            var cursor = start + header
            while true {
                guard end - cursor >= 2 else { return nil }
                if bytes[cursor] == 0 && bytes[cursor + 1] == 0 { break }
                guard let (_, next) = element(in: bytes, at: cursor, depth: depth + 1) else { return nil }
                cursor = next
            }
            let element = Element(
                tag: tag,
                value: bytes[(start + header)..<cursor],
                encoded: bytes[start..<(cursor + 2)]
            )
            return (element, cursor + 2)
        }
        var length = first
        if first & 0x80 != 0 {
            let width = first & 0x7f
            guard (1...3).contains(width), end - start >= 2 + width else { return nil }
            length = 0
            for index in 0..<width { length = length << 8 | Int(bytes[start + 2 + index]) }
            header += width
        }
        guard length <= end - start - header else { return nil }
        let stop = start + header + length
        return (Element(tag: tag, value: bytes[(start + header)..<stop], encoded: bytes[start..<stop]), stop)
    }

    /// The octets of an OCTET STRING, primitive (`04`) or constructed from primitive segments (`24`).
    /// - Returns: nil for any other tag or a malformed segment.
    static func octets(_ element: Element, depth: Int = 0) -> [UInt8]? {
        switch element.tag {
        case 0x04:
            return Array(element.value)
        case 0x24 where depth < maxDepth:
            var reader = BERReader(element.value)
            var octets: [UInt8] = []
            while !reader.isAtEnd {
                guard let segment = reader.next(), let part = Self.octets(segment, depth: depth + 1) else { return nil }
                octets += part
            }
            return octets
        default:
            return nil
        }
    }
}
