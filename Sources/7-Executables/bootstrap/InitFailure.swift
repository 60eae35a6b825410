internal import App

/// How a cold-start failure is reported on `/runtime/init/error`: a stable type and the reason slugs
/// with the variables at fault (no secret values ever reach these errors).
enum InitFailure {
    static func describe(_ error: any Error) -> (type: String, message: String) {
        switch error {
        case let error as ConfigurationError:
            (
                "AttestGate.ConfigurationError",
                error.problems.map { "\($0.reason.slug) \($0.variable)" }.joined(separator: "; ")
            )
        case let error as StartupError:
            ("AttestGate.StartupError", error.description)
        default:
            ("AttestGate.StartupError", String(describing: type(of: error)))
        }
    }
}
