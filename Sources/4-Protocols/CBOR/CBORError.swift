/// Why bytes are not acceptable CBOR. Equality uses only `reason`; `detail` is for logs.
package struct CBORError: Error, Hashable, CustomStringConvertible {
    /// A bounded reason slug, safe for logs and metrics.
    package struct Reason: Hashable, Sendable, CustomStringConvertible {
        package let slug: String
        private init(_ slug: String) { self.slug = slug }
        package var description: String { slug }

        /// The input ended inside a data item.
        package static let truncated = Reason("cbor.truncated")
        /// Bytes follow the single top-level item.
        package static let trailingBytes = Reason("cbor.trailing_bytes")
        /// Nesting deeper than the decoder's limit.
        package static let tooDeep = Reason("cbor.too_deep")
        /// A length or element count beyond the decoder's limit (or the input).
        package static let tooLarge = Reason("cbor.too_large")
        /// Indefinite-length items, which evidence never needs.
        package static let indefiniteLength = Reason("cbor.indefinite_length")
        /// Tags, floats, undefined or reserved encodings.
        package static let unsupported = Reason("cbor.unsupported")
        /// A text string that is not UTF-8.
        package static let invalidUTF8 = Reason("cbor.invalid_utf8")
        /// The same key twice in one map.
        package static let duplicateKey = Reason("cbor.duplicate_key")
    }

    package let reason: Reason
    package let detail: String

    package init(_ reason: Reason, detail: String = "") {
        self.reason = reason
        self.detail = detail
    }

    package static func == (lhs: CBORError, rhs: CBORError) -> Bool { lhs.reason == rhs.reason }
    package func hash(into hasher: inout Hasher) { hasher.combine(reason) }
    package var description: String { detail.isEmpty ? reason.slug : "\(reason.slug): \(detail)" }
}
