/// A cold-start failure other than a setting: a secret that cannot be read, a handler that may not run.
package struct StartupError: Error, Hashable, CustomStringConvertible {
    package struct Reason: Hashable, Sendable, CustomStringConvertible {
        package let slug: String
        private init(_ slug: String) { self.slug = slug }
        package var description: String { slug }

        /// A secret (file or Secrets Manager) is missing, unreadable, empty or too large.
        package static let secretUnreadable = Reason("startup.secret_unreadable")
        /// `_HANDLER=diagnostics` outside development.
        package static let diagnosticsInProduction = Reason("startup.diagnostics_in_production")
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
