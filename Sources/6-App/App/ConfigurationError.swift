/// Settings that cannot start the function. Every problem found is listed, so `attestgate config check`
/// shows them all at once; `reason` is the first one's.
package struct ConfigurationError: Error, Hashable, CustomStringConvertible {
    /// One problem with one variable.
    package struct Problem: Hashable, Sendable, CustomStringConvertible {
        package let reason: Reason
        /// The variable at fault (the first of a contradicting pair).
        package let variable: String
        /// For operators: what is wrong (never a secret's value).
        package let detail: String

        package init(_ reason: Reason, _ variable: String, _ detail: String) {
            self.reason = reason
            self.variable = variable
            self.detail = detail
        }

        package var description: String { "\(reason.slug) \(variable): \(detail)" }
    }

    package struct Reason: Hashable, Sendable, CustomStringConvertible {
        package let slug: String
        private init(_ slug: String) { self.slug = slug }
        package var description: String { slug }

        package static let missingSetting = Reason("config.missing_setting")
        package static let invalidValue = Reason("config.invalid_value")
        package static let invalidNumber = Reason("config.invalid_number")
        package static let invalidURL = Reason("config.invalid_url")
        package static let invalidRoutes = Reason("config.invalid_routes")
        package static let invalidTimeZone = Reason("config.invalid_time_zone")
        package static let invalidPaidClaim = Reason("config.invalid_paid_claim")
        /// `ATTESTGATE_ENV=production` with `APP_ATTEST_ENVIRONMENT=development`.
        package static let developmentAppAttestInProduction = Reason("config.development_app_attest_in_production")
        /// `APP_ATTEST_TRUST_ROOT` with `ATTESTGATE_ENV=production`.
        package static let trustRootInProduction = Reason("config.trust_root_in_production")
        /// Both `*_SECRET_ARN` and `*_FILE` for the same secret.
        package static let conflictingSecretSources = Reason("config.conflicting_secret_sources")
        /// Part of a provider's settings without the rest (team id without bundle ids, ...).
        package static let incompleteProvider = Reason("config.incomplete_provider")
        package static let incompleteCredentials = Reason("config.incomplete_aws_credentials")
        /// A route in enforce mode with no attestation provider configured: it could only refuse.
        package static let enforceWithoutProvider = Reason("config.enforce_without_provider")
        /// A route with `release: seed` in production without `ALLOW_SEED_RELEASE=true`.
        package static let seedReleaseInProduction = Reason("config.seed_release_in_production")
        /// A money ceiling with a route whose worst case cannot be bounded (opaque, or models without prices).
        package static let unboundedRoute = Reason("config.unbounded_route")
        /// `DEVICE_MARKS=on` without the DeviceCheck key settings: the two bits cannot be read.
        package static let deviceMarksWithoutDeviceCheck = Reason("config.device_marks_without_devicecheck")
        /// A development-only switch used in production.
        package static let developmentOnly = Reason("config.development_only")
        /// The deployed settings take more than Lambda's 4 KB environment (`attestgate config check` only).
        package static let environmentTooLarge = Reason("config.environment_too_large")
    }

    package let problems: [Problem]

    package init(_ problems: [Problem]) {
        precondition(!problems.isEmpty, "a configuration error names at least one problem")
        self.problems = problems
    }

    package init(_ reason: Reason, _ variable: String, _ detail: String) {
        self.init([Problem(reason, variable, detail)])
    }

    package var reason: Reason { problems[0].reason }
    package var description: String { problems.map(\.description).joined(separator: "; ") }
}
