internal import CCurl

extension HTTPError {
    /// Maps a libcurl result to a bounded reason; `curl_easy_strerror` and the error buffer go to
    /// `detail` for logs.
    static func from(_ code: CURLcode, transfer: CurlTransfer, message: String) -> HTTPError {
        let text = String(cString: curl_easy_strerror(code))
        let detail = message.isEmpty ? text : "\(text): \(message)"
        if code == CURLE_ABORTED_BY_CALLBACK && transfer.cancellation.isCancelled {
            return HTTPError(.cancelled, detail: detail)
        }
        if transfer.bodyTooLarge || transfer.headersTooLarge || code == CURLE_FILESIZE_EXCEEDED {
            return HTTPError(.responseTooLarge, detail: detail)
        }
        return HTTPError(reason(for: code), detail: detail)
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
