internal import AttestCore
internal import Crypto
package import FoundationEssentials

extension SigV4Signer {
    /// A presigned query string: the signature travels in the URL instead of the `Authorization` header
    /// (guide: "Authentication: query parameters"). Only the headers passed (normally `Host`) are signed.
    package struct Presigned: Sendable {
        /// The complete query string to send, the request's own parameters included, without `?`.
        package var query: String
        package var canonicalRequest: String
        package var stringToSign: String
        package var signature: String
    }

    /// Presigns `request` at `date`, valid for `expires` seconds. The payload is hashed as sent.
    package func presign(_ request: Request, date: Date, expires: Int) -> Presigned {
        let amzDate = AmzDate(date)
        let signed = Canonical.headers(request.headers).signed
        var parameters: [(String, String)] = [
            ("X-Amz-Algorithm", Self.algorithm),
            ("X-Amz-Credential", "\(credentials.accessKeyID)/\(scope(amzDate))"),
            ("X-Amz-Date", amzDate.timestamp),
            ("X-Amz-SignedHeaders", signed),
            ("X-Amz-Expires", String(expires)),
        ]
        if let token = credentials.sessionToken, !addSessionTokenAfterSigning {
            parameters.append(("X-Amz-Security-Token", token))
        }
        func render(_ list: [(String, String)]) -> String {
            list.map { Canonical.encode($0.0) + "=" + Canonical.encode($0.1) }.joined(separator: "&")
        }
        var query = request.query.isEmpty ? render(parameters) : request.query + "&" + render(parameters)
        let canonical = canonicalRequest(
            method: request.method,
            path: request.path,
            query: query,
            headers: request.headers,
            payloadHash: Bytes.hex(Digest.sha256(request.body))
        )
        let toSign = stringToSign(canonicalRequest: canonical.text, date: amzDate)
        let signature = signature(stringToSign: toSign, date: amzDate)
        if let token = credentials.sessionToken, addSessionTokenAfterSigning {
            query += "&" + render([("X-Amz-Security-Token", token)])
        }
        query += "&X-Amz-Signature=" + signature
        return Presigned(
            query: query,
            canonicalRequest: canonical.text,
            stringToSign: toSign,
            signature: signature
        )
    }
}
