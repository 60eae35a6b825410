import AttestCore
import FoundationEssentials
import Testing

@testable import SigV4

/// Known-answer tests over both AWS SigV4 suites in `Fixtures/` (see its README for provenance).
///
/// Cases that do not apply, each with its reason:
/// - aws-c-auth `*-unnormalized` (7 cases): `normalize: false` means S3's path rules (no dot-segment removal,
///   no slash collapsing). DynamoDB and Secrets Manager always normalise; botocore's generic signer fails six of
///   them (`get-space-unnormalized` has nothing to normalise, but it is an S3-rules case all the same).
/// Every other case of both suites runs, including the four legacy cases botocore's own runner skips
/// (`normalize-path/get-space` and the three `get-vanilla-query-order-*` multi-value cases): this signer passes them.
@Suite struct SigV4SuiteTests {
    static let fixtures = URL(filePath: #filePath).deletingLastPathComponent().appending(path: "Fixtures")
    static let date = Date(timeIntervalSince1970: 1_440_938_160)  // 2015-08-30T12:36:00Z
    static let credentials = SigV4Credentials(
        accessKeyID: "AKIDEXAMPLE",
        secretAccessKey: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY"
    )
    static let stsToken =
        "AQoDYXdzEPT//////////wEXAMPLEtc764bNrC9SAPBSM22wDOk4x4HIZ8j4FZTwdQWLWsKWHGBuFqwAeMicRXmxfpSPfIeoIYRqTflfKD8YUuwthAx7mSEI/qkPpKPi/kMcGdQrmGdeehM4IC1NtBmUpp2wUE8phUZampKsburEDy0KPkyQDYwT7WZ0wq5VSXDvp75YU9HFvlRd8Tx6q6fE8YQcHNVXAkiY9q6d+xo0rKwT38xVqr7ZD0u0iPPkUL64lIZbqBAz+scqKmlzm8FDrypNC9Yjc8fPOLn9FX9KSYvKTr4rvx3iSIlTJabIQwj2ICCR/oLxBA=="

    // MARK: legacy suite (.req/.creq/.sts/.authz)

    static let legacyCases: [String] = {
        let root = fixtures.appending(path: "aws-sig-v4-test-suite")
        let items = (try? FileManager.default.subpathsOfDirectory(atPath: root.path)) ?? []
        return items.filter { $0.hasSuffix(".req") }.map { String($0.dropLast(4)) }.sorted()
    }()

    @Test func legacySuiteIsComplete() {
        #expect(Self.legacyCases.count == 34)
    }

    @Test(arguments: legacyCases)
    func legacy(_ name: String) throws {
        let base = Self.fixtures.appending(path: "aws-sig-v4-test-suite").appending(path: name)
        var parsed = try RawRequest(text: read(base.appendingPathExtension("req")))
        var credentials = Self.credentials
        var signer = SigV4Signer(credentials: credentials, region: "us-east-1", service: "service")
        if let token = parsed.remove("X-Amz-Security-Token") { credentials.sessionToken = token }
        if name.hasSuffix("get-vanilla-with-session-token") {
            credentials.sessionToken = "6e86291e8372ff2a2260956d9b8aae1d763fbf315fa00fa31553b73ebf194267"
        }
        if name.hasSuffix("post-sts-header-after") {
            credentials.sessionToken = Self.stsToken
            signer.addSessionTokenAfterSigning = true
        }
        signer.credentials = credentials
        _ = parsed.remove("X-Amz-Date")  // the signer adds its own, from `date`

        let signed = signer.sign(parsed.request, date: Self.date)
        #expect(signed.canonicalRequest == (try read(base.appendingPathExtension("creq"))))
        #expect(signed.stringToSign == (try read(base.appendingPathExtension("sts"))))
        #expect(signed.authorization == (try read(base.appendingPathExtension("authz"))))
        #expect(signed.headers.first { $0.name == "X-Amz-Date" }?.value == "20150830T123600Z")
        #expect(signed.headers.first { $0.name == "X-Amz-Security-Token" }?.value == credentials.sessionToken)
    }

    // MARK: aws-c-auth v4 suite (context.json + header-*/query-*)

    static let newCases: [String] = {
        let root = fixtures.appending(path: "aws-c-auth/v4")
        return ((try? FileManager.default.contentsOfDirectory(atPath: root.path)) ?? []).sorted()
    }()
    static let applicableNewCases = newCases.filter { !$0.hasSuffix("-unnormalized") }

    @Test func newSuiteIsComplete() {
        #expect(Self.newCases.count == 38)
        #expect(Self.applicableNewCases.count == 31)
    }

    struct Context {
        var signer: SigV4Signer
        var expires: Int
        var normalize: Bool
    }

    func context(_ base: URL) throws -> Context {
        let json = try JSONValue.parse(Array(try read(base.appending(path: "context.json")).utf8))
        let credentials = try #require(json["credentials"])
        var signer = SigV4Signer(
            credentials: SigV4Credentials(
                accessKeyID: try #require(credentials["access_key_id"]?.stringValue),
                secretAccessKey: try #require(credentials["secret_access_key"]?.stringValue),
                sessionToken: credentials["token"]?.stringValue
            ),
            region: try #require(json["region"]?.stringValue),
            service: try #require(json["service"]?.stringValue)
        )
        #expect(json["timestamp"]?.stringValue == "2015-08-30T12:36:00Z")
        signer.signPayloadHashHeader = json["sign_body"]?.boolValue ?? false
        signer.addSessionTokenAfterSigning = json["omit_session_token"]?.boolValue ?? false
        return Context(
            signer: signer,
            expires: Int(json["expiration_in_seconds"]?.intValue ?? 0),
            normalize: json["normalize"]?.boolValue ?? true
        )
    }

    @Test(arguments: applicableNewCases)
    func headerSigning(_ name: String) throws {
        let base = Self.fixtures.appending(path: "aws-c-auth/v4").appending(path: name)
        let context = try context(base)
        #expect(context.normalize)
        let request = try RawRequest(text: read(base.appending(path: "request.txt"))).request
        let signed = context.signer.sign(request, date: Self.date)
        #expect(signed.canonicalRequest == (try read(base.appending(path: "header-canonical-request.txt"))))
        #expect(signed.stringToSign == (try read(base.appending(path: "header-string-to-sign.txt"))))
        #expect(signed.signature == (try read(base.appending(path: "header-signature.txt"))))
        let expected = try RawRequest(text: read(base.appending(path: "header-signed-request.txt")))
        #expect(signed.authorization == expected.header("Authorization"))
    }

    @Test(arguments: applicableNewCases)
    func querySigning(_ name: String) throws {
        let base = Self.fixtures.appending(path: "aws-c-auth/v4").appending(path: name)
        var context = try context(base)
        context.signer.signPayloadHashHeader = false  // presigning never adds the header
        let request = try RawRequest(text: read(base.appending(path: "request.txt"))).request
        let presigned = context.signer.presign(request, date: Self.date, expires: context.expires)
        #expect(presigned.canonicalRequest == (try read(base.appending(path: "query-canonical-request.txt"))))
        #expect(presigned.stringToSign == (try read(base.appending(path: "query-string-to-sign.txt"))))
        #expect(presigned.signature == (try read(base.appending(path: "query-signature.txt"))))
        #expect(presigned.query.hasSuffix("X-Amz-Signature=" + presigned.signature))
    }

    @Test func changingAnyInputChangesTheSignature() {
        let signer = SigV4Signer(credentials: Self.credentials, region: "us-east-1", service: "service")
        let request = SigV4Signer.Request(method: "POST", path: "/", headers: [("Host", "example.amazonaws.com")])
        let reference = signer.sign(request, date: Self.date).signature
        var other = signer
        other.region = "eu-west-1"
        #expect(other.sign(request, date: Self.date).signature != reference)
        var body = request
        body.body = [0x7b, 0x7d]
        #expect(signer.sign(body, date: Self.date).signature != reference)
        #expect(signer.sign(request, date: Self.date.addingTimeInterval(1)).signature != reference)
    }

    func read(_ url: URL) throws -> String {
        String(decoding: try Data(contentsOf: url), as: UTF8.self)
    }
}

/// A raw HTTP/1.1 request as the suites write it: request line, headers (folded lines start with a space),
/// an optional blank line and body. The request line may hold raw UTF-8 and spaces in the path.
struct RawRequest {
    var method: String
    var target: String
    var headers: [(name: String, value: String)]
    var body: [UInt8]

    struct Malformed: Error {}

    init(text: String) throws {
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let requestLine = lines.removeFirst()
        guard let firstSpace = requestLine.firstIndex(of: " "),
            let versionRange = requestLine.ranges(of: " HTTP/").last
        else { throw Malformed() }
        method = String(requestLine[..<firstSpace])
        target = String(requestLine[requestLine.index(after: firstSpace)..<versionRange.lowerBound])
        headers = []
        var index = 0
        while index < lines.count, !lines[index].isEmpty {
            let line = lines[index]
            if line.first == " " || line.first == "\t", !headers.isEmpty {
                headers[headers.count - 1].value += "\n" + line
            } else {
                guard let colon = line.firstIndex(of: ":") else { throw Malformed() }
                headers.append((String(line[..<colon]), String(line[line.index(after: colon)...])))
            }
            index += 1
        }
        body = index + 1 < lines.count ? Array(lines[(index + 1)...].joined(separator: "\n").utf8) : []
    }

    func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }

    mutating func remove(_ name: String) -> String? {
        let value = header(name)
        headers.removeAll { $0.name.lowercased() == name.lowercased() }
        return value
    }

    var request: SigV4Signer.Request {
        let parts = target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        return SigV4Signer.Request(
            method: method,
            path: String(parts[0]),
            query: parts.count > 1 ? String(parts[1]) : "",
            headers: headers,
            body: body
        )
    }
}
