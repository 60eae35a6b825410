internal import AttestCore
internal import Crypto
package import FoundationEssentials

/// AWS Signature Version 4 for one service in one region (header signing and presigned query strings).
///
/// Pure: the signing instant is a parameter and nothing is read from the environment, so every stage can be
/// checked against the AWS test suites. The stages follow the AWS guide "Create a signed AWS API request"
/// (https://docs.aws.amazon.com/IAM/latest/UserGuide/create-signed-request.html), steps 1 to 5.
///
/// ## Usage
/// ```swift
/// let signer = SigV4Signer(credentials: credentials, region: "eu-west-1", service: "dynamodb")
/// let added = signer.sign(request, date: clock.now())   // X-Amz-Date, X-Amz-Security-Token?, Authorization
/// ```
package struct SigV4Signer: Sendable {
    package static let algorithm = "AWS4-HMAC-SHA256"

    package var credentials: SigV4Credentials
    package var region: String
    package var service: String
    /// When true, `X-Amz-Security-Token` is added after signing instead of being signed. A few services want
    /// that (the suite's `post-sts-header-after`); DynamoDB and Secrets Manager sign it, so this stays false.
    package var addSessionTokenAfterSigning = false
    /// When true, an `X-Amz-Content-Sha256` header carrying the payload hash is added and signed (S3 style).
    package var signPayloadHashHeader = false

    package init(credentials: SigV4Credentials, region: String, service: String) {
        self.credentials = credentials
        self.region = region
        self.service = service
    }

    /// A request as the signer sees it.
    package struct Request: Sendable {
        package var method: String
        /// The path as the application means it, not yet percent-encoded (the signer encodes it once).
        package var path: String
        /// The query string without `?`, as it will be sent (raw or percent-encoded; both canonicalise alike).
        package var query: String
        /// Every header to sign, `Host` included; names in any case; repeated names allowed.
        package var headers: [(name: String, value: String)]
        package var body: [UInt8]

        package init(
            method: String,
            path: String,
            query: String = "",
            headers: [(name: String, value: String)],
            body: [UInt8] = []
        ) {
            self.method = method
            self.path = path
            self.query = query
            self.headers = headers
            self.body = body
        }
    }

    /// The credential scope `YYYYMMDD/region/service/aws4_request` (guide step 3).
    package func scope(_ date: AmzDate) -> String {
        "\(date.day)/\(region)/\(service)/aws4_request"
    }

    /// Step 1: the canonical request.
    ///
    /// `method \n canonicalURI \n canonicalQuery \n canonicalHeaders \n signedHeaders \n hex(SHA256(payload))`.
    /// - Returns: the canonical request text and the `SignedHeaders` list.
    package func canonicalRequest(
        method: String,
        path: String,
        query: String,
        headers: [(name: String, value: String)],
        payloadHash: String
    ) -> (text: String, signedHeaders: String) {
        let canonical = Canonical.headers(headers)
        let text = [
            method.uppercased(),
            Canonical.uri(path),
            Canonical.query(query),
            canonical.block,
            canonical.signed,
            payloadHash,
        ]
        .joined(separator: "\n")
        return (text, canonical.signed)
    }

    /// Step 2 and 3: the string to sign, `algorithm \n timestamp \n scope \n hex(SHA256(canonicalRequest))`.
    package func stringToSign(canonicalRequest: String, date: AmzDate) -> String {
        let hash = Bytes.hex(Digest.sha256(Array(canonicalRequest.utf8)))
        return [Self.algorithm, date.timestamp, scope(date), hash].joined(separator: "\n")
    }

    /// Step 4 (first half): the signing key, an HMAC chain over date, region, service and `aws4_request`.
    package func signingKey(date: AmzDate) -> [UInt8] {
        let secret = Array(("AWS4" + credentials.secretAccessKey).utf8)
        let dateKey = HMAC.sha256(key: secret, message: Array(date.day.utf8))
        let regionKey = HMAC.sha256(key: dateKey, message: Array(region.utf8))
        let serviceKey = HMAC.sha256(key: regionKey, message: Array(service.utf8))
        return HMAC.sha256(key: serviceKey, message: Array("aws4_request".utf8))
    }

    /// Step 4 (second half): the hex signature of `stringToSign`.
    package func signature(stringToSign: String, date: AmzDate) -> String {
        Bytes.hex(HMAC.sha256(key: signingKey(date: date), message: Array(stringToSign.utf8)))
    }

    /// The result of signing: the headers to add to the request, and the intermediate stages (for tests and
    /// debugging; never log them with the secret-derived signature).
    package struct Signed: Sendable {
        /// Headers to add, in order: `X-Amz-Date`, `X-Amz-Security-Token` (when present),
        /// `X-Amz-Content-Sha256` (when enabled), `Authorization`.
        package var headers: [(name: String, value: String)]
        package var canonicalRequest: String
        package var stringToSign: String
        package var signature: String

        package var authorization: String? { headers.first { $0.name == "Authorization" }?.value }
    }

    /// Signs `request` at `date` (step 5: the `Authorization` header).
    ///
    /// Any `X-Amz-Date`/`Authorization` already on the request should be left off by the caller: the signer
    /// adds its own. `X-Amz-Security-Token` is added and signed when the credentials carry a session token.
    package func sign(_ request: Request, date: Date) -> Signed {
        let amzDate = AmzDate(date)
        let payloadHash = Bytes.hex(Digest.sha256(request.body))
        var added: [(name: String, value: String)] = [("X-Amz-Date", amzDate.timestamp)]
        let token = credentials.sessionToken
        if let token, !addSessionTokenAfterSigning { added.append(("X-Amz-Security-Token", token)) }
        if signPayloadHashHeader { added.append(("X-Amz-Content-Sha256", payloadHash)) }

        let canonical = canonicalRequest(
            method: request.method,
            path: request.path,
            query: request.query,
            headers: request.headers + added,
            payloadHash: payloadHash
        )
        let toSign = stringToSign(canonicalRequest: canonical.text, date: amzDate)
        let signature = signature(stringToSign: toSign, date: amzDate)
        let credential = "\(credentials.accessKeyID)/\(scope(amzDate))"
        if let token, addSessionTokenAfterSigning { added.append(("X-Amz-Security-Token", token)) }
        added.append(
            (
                "Authorization",
                "\(Self.algorithm) Credential=\(credential), SignedHeaders=\(canonical.signedHeaders), Signature=\(signature)"
            )
        )
        return Signed(headers: added, canonicalRequest: canonical.text, stringToSign: toSign, signature: signature)
    }
}
