internal import AttestCore
package import HTTPClient

/// `RuntimeAPIClient` over HTTP (libcurl through `HTTPTransport`), at `http://$AWS_LAMBDA_RUNTIME_API`.
package struct CurlRuntimeAPIClient: RuntimeAPIClient {
    private let baseURL: String
    private let transport: any HTTPStreamingTransport

    /// - Parameters:
    ///   - endpoint: the value of `AWS_LAMBDA_RUNTIME_API` (`host:port`).
    ///   - transport: normally a `CurlTransport`; loopback http is allowed by its URL policy.
    package init(endpoint: String, transport: any HTTPStreamingTransport) {
        self.baseURL = "http://\(endpoint)/\(RuntimeAPIConsts.apiVersion)"
        self.transport = transport
    }

    package func next() async throws(RuntimeAPIError) -> RawInvocation {
        // A long poll: Lambda freezes the process while waiting, so no overall timeout.
        let request = HTTPRequest(
            method: "GET",
            url: baseURL + RuntimeAPIConsts.nextPath,
            timeout: nil,
            maxResponseBytes: RuntimeAPIConsts.maxEventBytes
        )
        let response = try await send(request)
        var headers: [String: String] = [:]
        for header in response.headers { headers[header.name] = header.value }
        return RawInvocation(headers: headers, body: response.body)
    }

    package func respond(requestID: String, body: [UInt8]) async throws(RuntimeAPIError) {
        let path = RuntimeAPIConsts.responsePath(try Self.pathSegment(requestID))
        _ = try await send(HTTPRequest(method: "POST", url: baseURL + path, body: body))
    }

    package func respond(requestID: String, streaming response: StreamedResponse) async throws(RuntimeAPIError) {
        try await startStreaming(requestID: requestID, contentType: response.contentType).complete(response)
    }

    /// The POST's head goes out now, on the kept Runtime API connection's own thread; its read callback then
    /// waits for the prelude (`complete`).
    package func startStreaming(requestID: String, contentType: String) throws(RuntimeAPIError) -> any StartedStream {
        let path = RuntimeAPIConsts.responsePath(try Self.pathSegment(requestID))
        let request = HTTPRequest(
            method: "POST",
            url: baseURL + path,
            headers: [
                HTTPHeader(AmazonHeaders.responseMode, "streaming"),
                HTTPHeader("Content-Type", contentType),
            ],
            timeout: nil
        )
        let body = RequestBodyStream(
            capacity: RuntimeAPIConsts.streamBufferBytes,
            trailerNames: [AmazonHeaders.functionErrorType, AmazonHeaders.functionErrorBody]
        )
        do {
            return CurlStartedStream(body: body, upload: try transport.start(request, streamingBody: body))
        } catch {
            throw RuntimeAPIError(.unreachable, detail: error.description)
        }
    }

    /// A started streamed POST: the body is written here while the POST runs on its handle's own thread.
    private struct CurlStartedStream: StartedStream {
        let body: RequestBodyStream
        let upload: StartedUpload

        func complete(_ response: StreamedResponse) async throws(RuntimeAPIError) {
            if let sendBy = response.sendBy { upload.abandon(at: sendBy) }
            let writer = StreamWriter(body: body)
            var completion = StreamCompletion.finished
            do {
                try await writer.write(response.prelude)
                completion = await response.body(writer)
            } catch {
                completion = .failed(FunctionError(type: "Runtime.StreamClosed", message: error.reason.slug))
            }
            switch completion {
            case .finished:
                body.finish()
            case .failed(let error):
                body.finish(trailers: [
                    HTTPHeader(AmazonHeaders.functionErrorType, error.type),
                    HTTPHeader(
                        AmazonHeaders.functionErrorBody,
                        Bytes.base64(CurlRuntimeAPIClient.errorDocument(error))
                    ),
                ])
            }
            let answer: HTTPResponse
            do {
                answer = try await upload.response()
            } catch {
                if let sendBy = response.sendBy, ContinuousClock.now >= sendBy {
                    throw RuntimeAPIError(.streamAbandoned, detail: error.description)
                }
                throw RuntimeAPIError(.unreachable, detail: error.description)
            }
            try CurlRuntimeAPIClient.check(answer)
        }
    }

    /// Writes into the streamed POST's body; a write after the POST ended throws `.streamClosed`.
    private struct StreamWriter: ResponseStreamWriter {
        let body: RequestBodyStream

        func write(_ bytes: [UInt8]) async throws(RuntimeAPIError) {
            do { try await body.write(bytes) } catch {
                throw RuntimeAPIError(.streamClosed, detail: error.reason.slug)
            }
        }

        var blocking: (any BlockingStreamWriter)? { BlockingWriter(body: body) }
    }

    /// Writes into the streamed POST's body from the upstream download's own thread.
    private struct BlockingWriter: BlockingStreamWriter {
        let body: RequestBodyStream

        func write(_ bytes: UnsafeRawBufferPointer, deadline: ContinuousClock.Instant) -> BlockingWriteFailure? {
            switch body.writeBlocking(bytes, deadline: deadline) {
            case .written: nil
            case .timedOut: .deadline
            case .closed(let error): .closed(RuntimeAPIError(.streamClosed, detail: error.reason.slug))
            }
        }
    }

    package func fail(requestID: String, error: FunctionError) async throws(RuntimeAPIError) {
        let path = RuntimeAPIConsts.errorPath(try Self.pathSegment(requestID))
        _ = try await send(Self.errorRequest(url: baseURL + path, error: error))
    }

    package func initError(_ error: FunctionError) async throws(RuntimeAPIError) {
        _ = try await send(Self.errorRequest(url: baseURL + RuntimeAPIConsts.initErrorPath, error: error))
    }

    fileprivate static func errorDocument(_ error: FunctionError) -> [UInt8] {
        JSONValue.object(["errorMessage": .string(error.message), "errorType": .string(error.type)]).serializedBytes
    }

    private static func errorRequest(url: String, error: FunctionError) -> HTTPRequest {
        HTTPRequest(
            method: "POST",
            url: url,
            headers: [
                HTTPHeader("Content-Type", "application/json"),
                HTTPHeader(AmazonHeaders.functionErrorType, error.type),
            ],
            body: errorDocument(error)
        )
    }

    /// Request ids come from the Runtime API, but they still go into a URL path: allow only the
    /// characters Lambda uses (UUIDs) so nothing can change the path.
    private static func pathSegment(_ requestID: String) throws(RuntimeAPIError) -> String {
        let allowed = requestID.utf8.allSatisfy { byte in
            (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5a) || (byte >= 0x61 && byte <= 0x7a)
                || byte == 0x2d || byte == 0x5f || byte == 0x2e
        }
        guard allowed, !requestID.isEmpty, requestID.utf8.count <= 128 else {
            throw RuntimeAPIError(.missingRequestID, detail: "request id with unexpected characters")
        }
        return requestID
    }

    /// A transport failure for the log: the transport's own `HTTPError` text (`reason: detail`) without
    /// `String(describing:)`, whose reflection costs a runtime conformance search per type the first time.
    private static func describe(_ error: any Error) -> String {
        (error as? HTTPError)?.description ?? String(describing: error)
    }

    private func send(_ request: HTTPRequest) async throws(RuntimeAPIError) -> HTTPResponse {
        let response: HTTPResponse
        do {
            response = try await transport.send(request)
        } catch {
            throw RuntimeAPIError(.unreachable, detail: Self.describe(error))
        }
        try Self.check(response)
        return response
    }

    fileprivate static func check(_ response: HTTPResponse) throws(RuntimeAPIError) {
        switch response.status {
        case 200..<300: return
        case 500: throw RuntimeAPIError(.fatal, detail: "status 500")
        default: throw RuntimeAPIError(.unexpectedStatus, detail: "status \(response.status)")
        }
    }
}
