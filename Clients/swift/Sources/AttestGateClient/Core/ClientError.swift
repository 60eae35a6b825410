/// A call the library refuses before any I/O, or a failure of one of its own seams (the store), with a
/// bounded reason slug. Equality uses only `reason`; `detail` is for logs.
public struct ClientError: Error, Hashable, CustomStringConvertible {
    /// A bounded reason slug.
    public struct Reason: Hashable, Sendable, CustomStringConvertible {
        public let slug: String
        private init(_ slug: String) { self.slug = slug }
        public var description: String { slug }

        /// The arguments cannot be a metered call (method, path, size).
        public static let invalidRequest = Reason("client.invalid_request")
        /// The secure store could not be read or written (`detail`: the platform's status).
        public static let storeFailed = Reason("client.store_failed")
        /// A stored record did not decode (written by another version, or damaged).
        public static let storeCorrupt = Reason("client.store_corrupt")
    }

    public let reason: Reason
    public let detail: String

    public init(_ reason: Reason, detail: String = "") {
        self.reason = reason
        self.detail = detail
    }

    public static func == (lhs: ClientError, rhs: ClientError) -> Bool { lhs.reason == rhs.reason }
    public func hash(into hasher: inout Hasher) { hasher.combine(reason) }
    public var description: String { detail.isEmpty ? reason.slug : "\(reason.slug): \(detail)" }
}
