import AttestCore
import FoundationEssentials
import Glibc
import LambdaRuntime
import Synchronization
import TestSupport
import Testing

/// Echoes the event, throws on `throw`, and records what it saw.
final class ScriptedHandler: LambdaHandler {
    struct Boom: Error {}
    let coldStartSink = CapturingLogSink()
    private let seen = Mutex<[(String, String?)]>([])

    var requestIDsAndTraces: [(String, String?)] { seen.withLock { $0 } }

    func handle(_ event: [UInt8], context: InvocationContext) async throws -> [UInt8] {
        let trace = getenv("_X_AMZN_TRACE_ID").map { String(cString: $0) }
        seen.withLock { $0.append((context.requestID, trace)) }
        context.logger.info("handling")
        // A logger made elsewhere (at cold start, say) still tags this invocation's lines.
        Logger(sink: coldStartSink).info("from a cold-start logger")
        if event == Array("throw".utf8) { throw Boom() }
        return event
    }
}

@Suite(.serialized) struct LambdaRunLoopTests {
    let sink = CapturingLogSink()
    var logger: Logger { Logger(level: .debug, sink: sink) }

    @Test func respondsThenEndsWhenNextAnswers500() async {
        let client = FakeRuntimeAPIClient([invocation("r1", body: "a"), invocation("r2", body: "b")])
        let loop = LambdaRunLoop(client: client, handler: ScriptedHandler(), logger: logger)
        let termination = await loop.run()
        #expect(termination == .runtimeAPIFailed(RuntimeAPIError(.fatal)))
        #expect(
            client.posts == [
                .response(requestID: "r1", body: Array("a".utf8)), .response(requestID: "r2", body: Array("b".utf8)),
            ]
        )
    }

    @Test func unreachableRuntimeAPIEndsTheLoop() async {
        let client = FakeRuntimeAPIClient([.failure(RuntimeAPIError(.unreachable))])
        let termination = await LambdaRunLoop(client: client, handler: ScriptedHandler(), logger: logger).run()
        #expect(termination == .runtimeAPIFailed(RuntimeAPIError(.unreachable)))
        #expect(client.posts.isEmpty)
    }

    @Test func handlerErrorIsReportedAndTheLoopGoesOn() async throws {
        let client = FakeRuntimeAPIClient([invocation("r1", body: "throw"), invocation("r2", body: "ok")])
        _ = await LambdaRunLoop(client: client, handler: ScriptedHandler(), logger: logger).run()
        #expect(
            client.posts == [
                .error(requestID: "r1", error: FunctionError(type: "Boom", message: "handler failed")),
                .response(requestID: "r2", body: Array("ok".utf8)),
            ]
        )
    }

    @Test func missingDeadlineIsReportedOnErrorNotACrash() async {
        let client = FakeRuntimeAPIClient([invocation("r1", deadline: nil), invocation("r2", deadline: "soon")])
        let handler = ScriptedHandler()
        _ = await LambdaRunLoop(client: client, handler: handler, logger: logger).run()
        let expected = FunctionError(type: "Runtime.InvalidInvocation", message: "runtime.missing_deadline")
        #expect(client.posts == [.error(requestID: "r1", error: expected), .error(requestID: "r2", error: expected)])
        #expect(handler.requestIDsAndTraces.isEmpty)
    }

    @Test func missingRequestIDIsLoggedAndSkipped() async {
        let client = FakeRuntimeAPIClient([invocation(nil), invocation("r2", body: "x")])
        let handler = ScriptedHandler()
        _ = await LambdaRunLoop(client: client, handler: handler, logger: logger).run()
        #expect(client.posts == [.response(requestID: "r2", body: Array("x".utf8))])
        #expect(sink.objects.contains { $0["reason"]?.stringValue == "runtime.missing_request_id" })
    }

    @Test func fatalAnswerToAPostEndsTheLoopOtherRefusalsDoNot() async {
        let fatal = FakeRuntimeAPIClient([invocation("r1"), invocation("r2")], postFailure: RuntimeAPIError(.fatal))
        #expect(await LambdaRunLoop(client: fatal, handler: ScriptedHandler(), logger: logger).runOnce() != nil)
        let refused = FakeRuntimeAPIClient(
            [invocation("r1"), invocation("r2")],
            postFailure: RuntimeAPIError(.unexpectedStatus)
        )
        let loop = LambdaRunLoop(client: refused, handler: ScriptedHandler(), logger: logger)
        #expect(await loop.runOnce() == nil)
        #expect(await loop.runOnce() == nil)
        #expect(refused.posts.count == 2)
    }

    @Test func traceIDIsExportedPerInvocationAndClearedWhenAbsent() async {
        let client = FakeRuntimeAPIClient([invocation("r1", trace: "Root=1-abc"), invocation("r2", trace: nil)])
        let handler = ScriptedHandler()
        _ = await LambdaRunLoop(client: client, handler: handler, logger: logger).run()
        let seen = handler.requestIDsAndTraces
        #expect(seen.count == 2)
        #expect(seen.first?.1 == "Root=1-abc")
        #expect(seen.last?.1 == nil)
    }

    @Test func everyHandlerLogLineCarriesTheRequestID() async {
        let client = FakeRuntimeAPIClient([invocation("r-77")])
        let handler = ScriptedHandler()
        _ = await LambdaRunLoop(client: client, handler: handler, logger: logger).run()
        let other = handler.coldStartSink.objects
        #expect(other.count == 1)
        #expect(other.first?["function_request_id"]?.stringValue == "r-77")
        let handling = sink.objects.filter { $0["message"]?.stringValue == "handling" }
        #expect(handling.count == 1)
        #expect(handling.first?["function_request_id"]?.stringValue == "r-77")
    }

    @Test func linesCarryPowertoolsKeysAndOnlyTheFirstInvocationIsAColdStart() async {
        let client = FakeRuntimeAPIClient([
            invocation("r-1", trace: "Root=1-abc;Parent=2;Sampled=1"), invocation("r-2"),
        ])
        let handler = ScriptedHandler()
        _ = await LambdaRunLoop(client: client, handler: handler, logger: logger).run()
        let handling = sink.objects.filter { $0["message"]?.stringValue == "handling" }
        #expect(handling.count == 2)
        #expect(handling.first?["cold_start"] == .bool(true) && handling.last?["cold_start"] == .bool(false))
        #expect(handling.first?["xray_trace_id"] == .string("1-abc") && handling.last?["xray_trace_id"] == nil)
        #expect(
            handling.allSatisfy {
                $0["level"] == .string("INFO") && $0["timestamp"]?.stringValue?.hasSuffix("Z") == true
            }
        )
    }
}

@Suite struct InvocationContextTests {
    @Test func readsHeadersAndComputesTheOutboundTimeout() throws {
        let raw = try invocation("r1", deadline: "1700000010000", trace: "Root=1").get()
        let context = try InvocationContext(invocation: raw, logger: Logger(sink: CapturingLogSink()))
        #expect(context.requestID == "r1")
        #expect(context.traceID == "Root=1")
        #expect(context.invokedFunctionARN == "arn:aws:lambda:eu-west-1:1:function:f")
        let now = Date(timeIntervalSince1970: 1_700_000_007)
        #expect(context.remainingTime(now: now) == .seconds(3))
        #expect(context.outboundTimeout(now: now, margin: .milliseconds(500)) == .milliseconds(2500))
        #expect(context.outboundTimeout(now: now, margin: .milliseconds(500), cap: .seconds(1)) == .seconds(1))
        // A handler's work stops `answerMargin` before Lambda's deadline.
        let work = context.workDeadline(now: now).remaining
        #expect(work <= .seconds(3) - InvocationContext.answerMargin && work > .seconds(2))
        let late = Date(timeIntervalSince1970: 1_700_000_011)
        #expect(context.remainingTime(now: late) == .zero)
        #expect(context.outboundTimeout(now: late) == .milliseconds(1))
    }

    @Test(arguments: [nil, "", "abc", "-5", "0"])
    func badDeadlineIsNamed(deadline: String?) throws {
        let raw = try invocation("r1", deadline: deadline).get()
        #expect(throws: RuntimeAPIError(.missingDeadline)) {
            try InvocationContext(invocation: raw, logger: Logger(sink: CapturingLogSink()))
        }
    }
}

/// A handler whose own error happens to be a `RuntimeAPIError`: still a function error, never a post failure.
struct RuntimeErrorThrowingHandler: LambdaHandler {
    func handle(_ event: [UInt8], context: InvocationContext) async throws -> [UInt8] {
        throw RuntimeAPIError(.fatal, detail: "from the handler")
    }
}

@Suite struct HandlerErrorTypeTests {
    @Test func aHandlerThrowingARuntimeAPIErrorIsReportedNotFatal() async {
        let client = FakeRuntimeAPIClient([invocation("r1")])
        let loop = LambdaRunLoop(
            client: client,
            handler: RuntimeErrorThrowingHandler(),
            logger: Logger(sink: CapturingLogSink())
        )
        #expect(await loop.runOnce() == nil)
        #expect(
            client.posts == [
                .error(requestID: "r1", error: FunctionError(type: "RuntimeAPIError", message: "handler failed"))
            ]
        )
    }
}
