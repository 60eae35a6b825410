package import AttestCore
internal import HTTPClient

/// The runtime loop: `next` → handler → `response` | `error`, until the Runtime API fails.
///
/// Generic over the client so the whole behaviour is tested against an in-memory fake:
/// - a failing `/next` (500, or unreachable) ends the loop; the process then exits;
/// - a handler that throws is reported on `/invocation/{id}/error` and the loop goes on;
/// - a streamed response is posted while its body is produced; a body that fails after its first byte
///   ends with the error trailers, and the loop goes on;
/// - a handler may start its streamed POST before it answers (`StreamStart.current`); its answer then goes
///   out through that POST, and a handler that throws (or answers buffered) after the start ends it with
///   the error trailers;
/// - an event without a request id or deadline is a runtime error that is logged (and reported on
///   `/error` when the request id is known), never a crash;
/// - a 500 answer to `/response` or `/error` ends the loop (the Runtime API says to exit), any other
///   refusal is logged and the loop goes on.
package struct LambdaRunLoop<Client: RuntimeAPIClient, Handler: LambdaHandler>: Sendable {
    /// Why the loop stopped.
    package enum Termination: Sendable, Hashable {
        case runtimeAPIFailed(RuntimeAPIError)

        /// The reason slug, for the last log line (the failure's detail was logged when it happened).
        package var reason: String {
            switch self {
            case .runtimeAPIFailed(let error): error.reason.slug
            }
        }
    }

    private let client: Client
    private let handler: Handler
    private let logger: Logger
    private let traceIDExporter: any TraceIDExporter
    /// Converts the invocation's wall-clock deadline for a streamed response's `sendBy`.
    private let clock: any WallClock
    /// Whether an invocation was served yet: the first one's lines say `cold_start: true`.
    private let started = StartedFlag()

    package init(
        client: Client,
        handler: Handler,
        logger: Logger,
        traceIDExporter: any TraceIDExporter = EnvironmentTraceIDExporter(),
        clock: any WallClock = SystemClock()
    ) {
        self.client = client
        self.handler = handler
        self.logger = logger
        self.traceIDExporter = traceIDExporter
        self.clock = clock
    }

    /// Serves invocations until the Runtime API fails.
    package func run() async -> Termination {
        while true {
            if let termination = await runOnce() { return termination }
        }
    }

    /// Serves one invocation; nil means the loop should go on. Its requests (`/next`, the handler's,
    /// the answer) run on the loop's thread (`OwnThreadTransfers`): one invocation at a time, so there is
    /// nothing else to run meanwhile, and an event that arrives needs no second thread woken to be handled.
    package func runOnce() async -> Termination? {
        await OwnThreadTransfers.run { await serveOne() }
    }

    private func serveOne() async -> Termination? {
        let invocation: RawInvocation
        do {
            invocation = try await client.next()
        } catch {
            logger.error(
                "runtime api next failed",
                ["reason": .string(error.reason.slug), "detail": .string(error.detail)]
            )
            return .runtimeAPIFailed(error)
        }

        let context: InvocationContext
        do {
            context = try InvocationContext(invocation: invocation, logger: logger)
        } catch {
            return await reportBadInvocation(invocation, error)
        }

        traceIDExporter.export(context.traceID)
        let log = context.logger
        let metadata = context.logMetadata(coldStart: started.claimFirst())
        let response: LambdaResponse
        // The handler may start its streamed POST early (`StreamStart`); what it answers then goes through it.
        let client = self.client
        let requestID = context.requestID
        let streamStart = StreamStart { () throws(RuntimeAPIError) -> any StartedStream in
            try client.startStreaming(requestID: requestID, contentType: StreamedResponse.httpIntegrationContentType)
        }
        do {
            response = try await Logger.$taskMetadata.withValue(metadata) {
                try await StreamStart.$current.withValue(streamStart) {
                    try await handler.respond(to: invocation.body, context: context)
                }
            }
        } catch {
            log.error("handler failed", ["errorType": .string(Self.typeName(error))])
            let report = FunctionError(type: Self.typeName(error), message: "handler failed")
            if let started = streamStart.started {
                // The POST is already out: the failure ends it with the error trailers.
                return await endStarted(started, with: report, log)
            }
            do {
                try await client.fail(requestID: context.requestID, error: report)
            } catch {
                return outcomeOfPost(error, log)
            }
            return nil
        }
        do throws(RuntimeAPIError) {
            switch response {
            case .buffered(let body):
                if let started = streamStart.started {
                    // A started POST cannot carry a buffered payload: it ends with the error trailers.
                    log.error("buffered answer after the stream started")
                    let report = FunctionError(type: "Runtime.BufferedAfterStreamStart", message: "handler failed")
                    return await endStarted(started, with: report, log)
                }
                try await client.respond(requestID: context.requestID, body: body)
            case .streamed(var streamed):
                // Given up before Lambda's own deadline at the latest, so the runtime lives on to the next one.
                let left = context.remainingTime(now: clock.now())
                let last = ContinuousClock.now + left - StreamedResponse.abandonMargin
                streamed.sendBy = min(streamed.sendBy ?? last, last)
                // The body is produced inside this call: its log lines carry the request id too.
                let failure = await Logger.$taskMetadata.withValue(metadata) {
                    () async -> RuntimeAPIError? in
                    do throws(RuntimeAPIError) {
                        if let started = streamStart.started {
                            try await started.get().complete(streamed)
                        } else {
                            try await client.respond(requestID: context.requestID, streaming: streamed)
                        }
                        return nil
                    } catch {
                        return error
                    }
                }
                if let failure { throw failure }
            }
        } catch {
            return outcomeOfPost(error, log)
        }
        return nil
    }

    /// Ends a started POST whose handler failed (or answered buffered): no prelude, the error trailers.
    private func endStarted(
        _ started: Result<any StartedStream, RuntimeAPIError>,
        with report: FunctionError,
        _ log: Logger
    ) async -> Termination? {
        let failed = StreamedResponse(contentType: StreamedResponse.httpIntegrationContentType) { _ in .failed(report) }
        do {
            try await started.get().complete(failed)
        } catch {
            return outcomeOfPost(error, log)
        }
        return nil
    }

    private func reportBadInvocation(_ invocation: RawInvocation, _ error: RuntimeAPIError) async -> Termination? {
        logger.error("invalid invocation", ["reason": .string(error.reason.slug)])
        guard let requestID = invocation.headers[AmazonHeaders.requestID], !requestID.isEmpty else {
            // Without a request id there is nothing to answer; Lambda times the invocation out.
            return nil
        }
        do {
            try await client.fail(
                requestID: requestID,
                error: FunctionError(type: "Runtime.InvalidInvocation", message: error.reason.slug)
            )
        } catch {
            return outcomeOfPost(error, logger)
        }
        return nil
    }

    private func outcomeOfPost(_ error: RuntimeAPIError, _ log: Logger) -> Termination? {
        log.error("runtime api post failed", ["reason": .string(error.reason.slug), "detail": .string(error.detail)])
        return error.reason == .fatal ? .runtimeAPIFailed(error) : nil
    }

    /// The error's type name: bounded, and never the error's payload (which may carry details).
    private static func typeName(_ error: any Error) -> String {
        String(describing: type(of: error))
    }
}
