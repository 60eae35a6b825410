/// Why a call to the Lambda Runtime API, or an invocation's framing, failed.
///
/// Equality uses only `reason`; `detail` is for logs.
package struct RuntimeAPIError: Error, Hashable, CustomStringConvertible {
    package struct Reason: Hashable, Sendable, CustomStringConvertible {
        package let slug: String
        private init(_ slug: String) { self.slug = slug }
        package var description: String { slug }

        /// The Runtime API could not be reached or did not answer.
        package static let unreachable = Reason("runtime.api_unreachable")
        /// The Runtime API answered 500: "non-recoverable state, runtime should exit promptly".
        package static let fatal = Reason("runtime.api_fatal")
        /// The Runtime API answered another unexpected status (400, 403, 413, ...).
        package static let unexpectedStatus = Reason("runtime.api_unexpected_status")
        /// A streamed response can take no more bytes: its POST has ended (answered or failed).
        package static let streamClosed = Reason("runtime.stream_closed")
        /// A streamed POST was given up at its `sendBy`: the Runtime API had not taken the whole body (a
        /// client that stopped reading), so the runtime goes on to the next invocation without its answer.
        package static let streamAbandoned = Reason("runtime.stream_abandoned")
        /// `/next` answered without `Lambda-Runtime-Aws-Request-Id`.
        package static let missingRequestID = Reason("runtime.missing_request_id")
        /// `/next` answered without a usable `Lambda-Runtime-Deadline-Ms`.
        package static let missingDeadline = Reason("runtime.missing_deadline")
    }

    package let reason: Reason
    package let detail: String

    package init(_ reason: Reason, detail: String = "") {
        self.reason = reason
        self.detail = detail
    }

    package static func == (lhs: Self, rhs: Self) -> Bool { lhs.reason == rhs.reason }
    package func hash(into hasher: inout Hasher) { hasher.combine(reason) }
    package var description: String { detail.isEmpty ? reason.slug : "\(reason.slug): \(detail)" }
}
