import AttestCore
import LambdaRuntime
import TestSupport
import Testing

@Suite struct APIGatewayEventTests {
    /// A Function URL's events come from `<url-id>.lambda-url.<region>.on.aws` (any case); nothing else
    /// counts as one, a look-alike host included.
    @Test(arguments: [
        ("abc123.lambda-url.eu-west-1.on.aws", true),
        ("ABC123.Lambda-URL.eu-west-1.ON.AWS", true),
        ("abc123.execute-api.eu-west-1.amazonaws.com", false),
        ("abc123.lambda-url.eu-west-1.on.aws.example.com", false),
        ("lambda-url.on.aws", false),
        ("abc123.on.aws", false),
        ("127.0.0.1", false),
        ("", false),
    ])
    func functionURLEventsAreToldByTheirDomain(domain: String, viaFunctionURL: Bool) throws {
        let event =
            #"{"version":"2.0","rawPath":"/v1/x","requestContext":{"domainName":"\#(domain)","#
            + #""http":{"method":"POST"}}}"#
        #expect(try APIGatewayRequest(event: Array(event.utf8)).viaFunctionURL == viaFunctionURL)
    }

    @Test func httpV2DocsEvent() throws {
        let request = try APIGatewayRequest(event: Fixture.bytes("lambda/apigw-http-v2.0-request.aws-docs.json"))
        #expect(request.format == .httpV2)
        #expect(request.method == "POST")
        #expect(request.rawPath == "/my/path")
        #expect(request.rawQueryString == "parameter1=value1&parameter1=value2&parameter2=value")
        #expect(request.cookies == ["cookie1", "cookie2"])
        #expect(request.headers["header2"] == "value1,value2")
        #expect(request.headers["HEADER1"] == "value1")
        #expect(request.body == Array("Hello from Lambda".utf8))
        #expect(request.requestID == "id")
        #expect(request.sourceIP == "IP")
        #expect(request.jwtClaims == ["claim1": "value1", "claim2": "value2"])
    }

    @Test func httpV2RealisticEventWithoutAuthorizerOrBody() throws {
        let request = try APIGatewayRequest(event: Fixture.bytes("lambda/apigw-http-v2.0-request.aws-lambda-go.json"))
        #expect(request.format == .httpV2)
        #expect(request.jwtClaims == nil)
        #expect(request.body.isEmpty)
        #expect(!request.method.isEmpty)
    }

    @Test func httpV1Event() throws {
        let request = try APIGatewayRequest(event: Fixture.bytes("lambda/apigw-http-v1.0-request.aws-docs.json"))
        #expect(request.format == .httpV1)
        #expect(request.method == "GET")
        #expect(request.rawPath == "/my/path")
        #expect(request.headers.values("header2") == ["value1", "value2"])
        #expect(request.headers["Header2"] == "value1,value2")
        #expect(request.body == Array("Hello from Lambda!".utf8))
        #expect(request.requestID == "id=")
        #expect(request.sourceIP == "IP")
        #expect(request.jwtClaims == nil)  // "claims": null
    }

    @Test func restProxyEvent() throws {
        let request = try APIGatewayRequest(event: Fixture.bytes("lambda/apigw-rest-v1.0-request.aws-lambda-go.json"))
        #expect(request.format == .rest)
        #expect(request.method == "POST")
        #expect(request.rawPath == "/hello/world")
        #expect(request.headers["content-type"] == "application/json")
        #expect(try JSONValue.parse(request.body) == .object(["a": .int(1)]))
    }

    @Test func base64BodyIsDecoded() throws {
        let event =
            #"{"version":"2.0","rawPath":"/x","requestContext":{"http":{"method":"post"}},"body":"AAEC/w==","isBase64Encoded":true}"#
        let request = try APIGatewayRequest(event: Array(event.utf8))
        #expect(request.body == [0, 1, 2, 255])
        #expect(request.method == "POST")
    }

    @Test func restClaimsAndCookiesFromHeaders() throws {
        let event = #"""
            {"resource":"/{proxy+}","path":"/a","httpMethod":"GET","headers":{"Cookie":"a=1; b=2"},
             "requestContext":{"requestId":"r","authorizer":{"claims":{"sub":"u1","n":3}}}}
            """#
        let request = try APIGatewayRequest(event: Array(event.utf8))
        #expect(request.cookies == ["a=1", "b=2"])
        #expect(request.jwtClaims == ["sub": "u1", "n": "3"])
    }

    @Test(arguments: [
        ("not json", APIGatewayEventError.Reason.notJSON),
        ("[1,2]", .notJSON),
        (#"{"hello":"world"}"#, .notAPIGatewayEvent),
        (#"{"version":"2.0","rawPath":"/x"}"#, .notAPIGatewayEvent),
        (
            #"{"version":"2.0","rawPath":"/x","requestContext":{"http":{"method":"GET"}},"headers":{"a":1}}"#,
            .malformedField
        ),
        (
            #"{"version":"2.0","rawPath":"/x","requestContext":{"http":{"method":"GET"}},"body":"!!","isBase64Encoded":true}"#,
            .invalidBase64Body
        ),
        (#"{"version":"2.0","rawPath":"/x","requestContext":{"http":{"method":"GET"}},"body":5}"#, .malformedField),
    ])
    func malformedEventsAreNamed(event: String, reason: APIGatewayEventError.Reason) {
        #expect(throws: APIGatewayEventError(reason)) { try APIGatewayRequest(event: Array(event.utf8)) }
    }
}

@Suite struct APIGatewayResponseTests {
    /// A body is never written larger than its base64 (the routes' `maxResponseBytes` limit assumes it): text
    /// that JSON escaping would blow up (control bytes: six each) goes as base64, ordinary text as text.
    @Test func aBodyIsNeverWrittenLargerThanItsBase64() throws {
        let controls = [UInt8](repeating: 0x01, count: 3000)
        let escaped = try JSONValue.parse(APIGatewayResponse(status: 200, body: controls).encoded(for: .httpV2))
        #expect(escaped["isBase64Encoded"] == .bool(true))
        #expect(escaped["body"]?.stringValue?.utf8.count == 4000)
        let text = Array(#"{"cards":["a \"quoted\" line\n"]}"#.utf8)
        let plain = try JSONValue.parse(APIGatewayResponse(status: 200, body: text).encoded(for: .httpV2))
        #expect(
            plain["isBase64Encoded"] == .bool(false) && plain["body"]?.stringValue?.utf8.elementsEqual(text) == true
        )
    }

    @Test func v2ResponseJoinsHeadersAndKeepsCookies() throws {
        var headers = HeaderFields()
        headers.append("X-A", "1")
        headers.append("x-a", "2")
        let response = APIGatewayResponse(status: 201, headers: headers, cookies: ["c=1"], body: Array("hi".utf8))
        let json = try JSONValue.parse(response.encoded(for: .httpV2))
        #expect(json["statusCode"] == .int(201))
        #expect(json["headers"]?["X-A"] == .string("1,2"))
        #expect(json["cookies"] == .array([.string("c=1")]))
        #expect(json["body"] == .string("hi"))
        #expect(json["isBase64Encoded"] == .bool(false))
        // The shape matches the 2.0 response fixture's keys.
        let fixture = try JSONValue.parse(
            Fixture.bytes("lambda/apigw-http-v2.0-response.aws-lambda-go-lambda-urls.json")
        )
        #expect(Set(json.objectValue!.keys) == Set(fixture.objectValue!.keys))
    }

    @Test func restResponseUsesMultiValueHeadersAndSetCookie() throws {
        var headers = HeaderFields()
        headers.append("X-A", "1")
        headers.append("X-A", "2")
        let response = APIGatewayResponse(status: 200, headers: headers, cookies: ["c=1", "d=2"], body: [0xff, 0x00])
        let json = try JSONValue.parse(response.encoded(for: .rest))
        #expect(json["multiValueHeaders"]?["X-A"] == .array([.string("1"), .string("2")]))
        #expect(json["multiValueHeaders"]?["Set-Cookie"] == .array([.string("c=1"), .string("d=2")]))
        #expect(json["isBase64Encoded"] == .bool(true))
        #expect(json["body"] == .string("/wA="))
        let fixture = try JSONValue.parse(Fixture.bytes("lambda/apigw-rest-v1.0-response.aws-lambda-go.json"))
        for key in fixture.objectValue!.keys { #expect(json[key] != nil, "missing \(key)") }
    }

    @Test func errorBodyIsTheContractShape() throws {
        let json = try JSONValue.parse(APIGatewayResponse.refused(.notFound).encoded(for: .httpV2))
        #expect(json["body"] == .string(#"{"error":"not_found"}"#))
        #expect(json["headers"]?["Content-Type"] == .string("application/json"))
    }
}

@Suite struct HeaderFieldsTests {
    @Test func namesCompareWithoutCaseAndDuplicatesJoinInOrder() {
        var headers: HeaderFields = ["Content-Type": "application/json"]
        headers.append("X-Device-ID", "a")
        headers.append("x-device-id", "b")
        #expect(headers["content-type"] == "application/json")
        #expect(headers["X-DEVICE-ID"] == "a,b")
        #expect(headers.values("x-Device-Id") == ["a", "b"])
        #expect(headers["x-device-i"] == nil)
        #expect(headers.names == ["Content-Type", "X-Device-ID"])
        headers.set("X-Device-Id", "c")
        #expect(headers.values("x-device-id") == ["c"])
        headers.remove("CONTENT-TYPE")
        #expect(headers["content-type"] == nil)
        #expect(headers.fields.count == 1)
        // Names fold ASCII case only, in lookups and in `names` alike (the Kelvin sign is not a "k").
        let odd: HeaderFields = ["\u{212A}-x": "1", "k-x": "2"]
        #expect(odd.names == ["\u{212A}-x", "k-x"])
        #expect(odd["K-X"] == "2")
    }
}
