internal import Gate
internal import LambdaRuntime

extension APIGatewayResponse {
    /// The gate's answer in API Gateway's shape, headers in a stable (sorted) order.
    init(_ answer: MeteredResponse) {
        var headers = HeaderFields()
        for name in answer.headers.keys.sorted() { headers.append(name, answer.headers[name]!) }
        self.init(status: answer.status, headers: headers, body: answer.body)
    }
}
