internal import AttestCore
internal import Gate
internal import LambdaRuntime

extension APIGatewayResponse {
    /// The gate's answer in API Gateway's shape, headers in a stable (sorted) order. An admitted call
    /// on a streamed route becomes a streamed response whose body is the provider's, relayed as it
    /// arrives (`StreamRelay`).
    init(_ answer: GateResponse, logger: Logger = Logger()) {
        var headers = HeaderFields()
        for name in answer.headers.keys.sorted() { headers.append(name, answer.headers[name]!) }
        var stream: ResponseStreamBody?
        if let upstream = answer.stream {
            // The stream stops at its own deadline; its last bytes and trailers then get `drainTime` to leave.
            stream = ResponseStreamBody(sendBy: upstream.deadline + StreamRelay.drainTime) { writer in
                await StreamRelay.relay(upstream, to: writer, logger: logger)
            }
        }
        self.init(status: answer.status, headers: headers, body: answer.body, stream: stream)
    }
}
