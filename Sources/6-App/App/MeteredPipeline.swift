package import AttestCore
package import FoundationEssentials
package import Gate

/// Everything a metered route does after routing: gate → allowance → ceiling → upstream.
///
/// `MeteredCall` (Gate) is the product's pipeline; tests may substitute their own. The route handler
/// only knows this protocol.
package protocol MeteredPipeline: Sendable {
    /// - Parameter deadline: the invocation's deadline; store requests and the upstream call end before it.
    func handle(
        _ request: MeteredRequest,
        route: MeteredRoute,
        now: Date,
        deadline: Deadline,
        logger: Logger
    ) async -> GateResponse
}

extension MeteredCall: MeteredPipeline {}
