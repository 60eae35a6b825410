/// A tiny DER reader for fixed shapes (a certificate's outer sections, the nonce extension, receipt
/// attributes).
///
/// Not a general ASN.1 parser: it reads one tag-length-value at a time, tags in one byte only, and
/// refuses indefinite lengths. Long-form lengths are refused unless `allowLongForm` is set; the
/// nonce extension is always short-form, so its reader refuses them outright.
package struct DERReader {
    package struct Element {
        package let tag: UInt8
        package let value: ArraySlice<UInt8>
        /// The whole element: tag, length and value.
        package let encoded: ArraySlice<UInt8>
    }

    private let bytes: [UInt8]
    private(set) var offset: Int
    private let end: Int
    let allowLongForm: Bool

    package init(_ bytes: ArraySlice<UInt8>, allowLongForm: Bool) {
        self.bytes = Array(bytes)
        self.offset = 0
        self.end = self.bytes.count
        self.allowLongForm = allowLongForm
    }

    package var isAtEnd: Bool { offset == end }

    /// Reads the next element; nil when the input is malformed (truncated, long-form when refused,
    /// multi-byte tag, indefinite or non-minimal length).
    package mutating func next() -> Element? {
        guard end - offset >= 2 else { return nil }
        let tag = bytes[offset]
        guard tag & 0x1f != 0x1f else { return nil }  // multi-byte tag numbers never appear here
        var length = Int(bytes[offset + 1])
        var header = 2
        if length & 0x80 != 0 {
            let width = length & 0x7f
            guard allowLongForm, (1...3).contains(width), end - offset >= 2 + width else { return nil }
            length = 0
            for index in 0..<width { length = length << 8 | Int(bytes[offset + 2 + index]) }
            // DER: the long form only for lengths of 128 and more, without leading zero bytes.
            guard length >= 0x80, bytes[offset + 2] != 0 else { return nil }
            header += width
        }
        guard length <= end - offset - header else { return nil }
        let value = bytes[(offset + header)..<(offset + header + length)]
        let encoded = bytes[offset..<(offset + header + length)]
        offset += header + length
        return Element(tag: tag, value: value, encoded: encoded)
    }

    /// Reads the next element and requires `tag`.
    package mutating func next(tag: UInt8) -> ArraySlice<UInt8>? {
        guard let element = next(), element.tag == tag else { return nil }
        return element.value
    }
}
