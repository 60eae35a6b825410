internal import CCurl

extension HTTPError {
    /// Maps a libcurl result to a bounded reason; `curl_easy_strerror` and the error buffer go to
    /// `detail` for logs.
    /// - Parameters:
    ///   - requestBytes: `CURLINFO_REQUEST_SIZE`, the request bytes libcurl wrote.
    ///   - pretransferMicros: `CURLINFO_PRETRANSFER_TIME_T`; 0 when the transfer never got as far as
    ///     sending the request (connection or TLS not established).
    static func from(
        _ code: CURLcode,
        transfer: CurlTransfer,
        message: String,
        requestBytes: Int = 0,
        pretransferMicros: Int64 = 0
    ) -> HTTPError {
        let text = String(cString: curl_easy_strerror(code))
        let detail = message.isEmpty ? text : "\(text): \(message)"
        let stage = stage(
            code,
            requestBytes: requestBytes,
            pretransferMicros: pretransferMicros,
            responseBytes: transfer.headerBytes + transfer.body.count
        )
        if code == CURLE_ABORTED_BY_CALLBACK && transfer.cancellation.isCancelled {
            return HTTPError(.cancelled, detail: detail, stage: stage)
        }
        if transfer.bodyTooLarge || transfer.headersTooLarge || code == CURLE_FILESIZE_EXCEEDED {
            return HTTPError(.responseTooLarge, detail: detail, stage: .responseStarted)
        }
        return HTTPError(reason(for: code), detail: detail, stage: stage)
    }

    /// `notSent` only when libcurl wrote no request byte and failed before the transfer could start:
    /// resolution, connection or TLS handshake (the HTTP request is only written after the handshake),
    /// or a timeout that struck before the pre-transfer point. Anything else that wrote a byte is
    /// `sent`, or `responseStarted` once a response byte came back.
    static func stage(_ code: CURLcode, requestBytes: Int, pretransferMicros: Int64, responseBytes: Int) -> Stage {
        if responseBytes > 0 { return .responseStarted }
        guard requestBytes == 0 else { return .sent }
        switch reason(for: code) {
        case .connectFailed, .tlsFailed: return .notSent
        case .timeout, .cancelled: return pretransferMicros == 0 ? .notSent : .sent
        default: return .unknown
        }
    }

    static func reason(for code: CURLcode) -> Reason {
        switch code {
        case CURLE_OPERATION_TIMEDOUT:
            return .timeout
        case CURLE_COULDNT_CONNECT, CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_RESOLVE_PROXY:
            return .connectFailed
        case CURLE_SSL_CONNECT_ERROR, CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CERTPROBLEM,
            CURLE_SSL_CIPHER, CURLE_SSL_CACERT_BADFILE, CURLE_SSL_ENGINE_NOTFOUND, CURLE_SSL_ENGINE_SETFAILED,
            CURLE_SSL_ISSUER_ERROR, CURLE_SSL_PINNEDPUBKEYNOTMATCH, CURLE_SSL_INVALIDCERTSTATUS,
            CURLE_SSL_CRL_BADFILE, CURLE_SSL_SHUTDOWN_FAILED, CURLE_USE_SSL_FAILED:
            return .tlsFailed
        case CURLE_RECV_ERROR, CURLE_SEND_ERROR, CURLE_GOT_NOTHING, CURLE_PARTIAL_FILE, CURLE_HTTP2,
            CURLE_HTTP2_STREAM:
            return .connectionReset
        case CURLE_URL_MALFORMAT:
            return .invalidURL
        case CURLE_UNSUPPORTED_PROTOCOL:
            return .protocolRefused
        default:
            return .failed
        }
    }
}
