import AWSJSON
import AttestCore
import Testing

@Suite struct AWSErrorDecoderTests {
    @Test(arguments: [
        ("com.amazonaws.dynamodb.v20120810#ConditionalCheckFailedException", "ConditionalCheckFailedException"),
        ("ThrottlingException", "ThrottlingException"),
        ("a#b#ResourceNotFoundException", "ResourceNotFoundException"),
        ("ValidationException:http://internal.amazon.com/coral/com.amazon.coral.validate/", "ValidationException"),
    ])
    func codeIsThePartAfterTheLastHash(_ type: String, _ code: String) {
        #expect(AWSErrorDecoder.code(fromType: type) == code)
    }

    @Test func readsTypeAndLowerCaseMessage() {
        let body = #"{"__type":"com.amazonaws.dynamodb.v20120810#ValidationException","message":"bad key"}"#
        let error = AWSErrorDecoder.decode(status: 400, body: Array(body.utf8), errorTypeHeader: nil, retryAfter: nil)
        #expect(error.reason == .validation)
        #expect(error.code == "ValidationException")
        #expect(error.detail == "bad key")
        #expect(error.status == 400)
    }

    @Test func readsCapitalisedMessage() {
        let body = #"{"__type":"ResourceNotFoundException","Message":"Secrets Manager can't find it"}"#
        let error = AWSErrorDecoder.decode(status: 400, body: Array(body.utf8), errorTypeHeader: nil, retryAfter: nil)
        #expect(error.reason == .resourceNotFound)
        #expect(error.detail == "Secrets Manager can't find it")
    }

    @Test func fallsBackToTheErrorTypeHeader() {
        let error = AWSErrorDecoder.decode(
            status: 400,
            body: Array("{}".utf8),
            errorTypeHeader: "ThrottlingException:http://internal",
            retryAfter: nil
        )
        #expect(error.code == "ThrottlingException")
        #expect(error.reason == .throttled)
    }

    @Test func keepsTheConditionalFailureDocument() {
        let body = #"{"__type":"x#ConditionalCheckFailedException","message":"c","Item":{"PK":{"S":"a"}}}"#
        let error = AWSErrorDecoder.decode(status: 400, body: Array(body.utf8), errorTypeHeader: nil, retryAfter: nil)
        #expect(error.reason == .conditionalCheckFailed)
        #expect(error.body?["Item"]?["PK"]?["S"]?.stringValue == "a")
    }

    @Test func nonJSONBodiesAreClassifiedByStatus() {
        let html = Array("<html>Bad Gateway</html>".utf8)
        #expect(
            AWSErrorDecoder.decode(status: 502, body: html, errorTypeHeader: nil, retryAfter: nil).reason
                == .serverError
        )
        #expect(
            AWSErrorDecoder.decode(status: 429, body: html, errorTypeHeader: nil, retryAfter: nil).reason == .throttled
        )
        #expect(
            AWSErrorDecoder.decode(status: 403, body: html, errorTypeHeader: nil, retryAfter: nil).reason
                == .clientError
        )
        #expect(AWSErrorDecoder.decode(status: 502, body: html, errorTypeHeader: nil, retryAfter: nil).code == nil)
    }

    @Test func readsRetryAfterSeconds() {
        let error = AWSErrorDecoder.decode(status: 503, body: [], errorTypeHeader: nil, retryAfter: "7")
        #expect(error.retryAfterSeconds == 7)
        let date = AWSErrorDecoder.decode(status: 503, body: [], errorTypeHeader: nil, retryAfter: "Wed, 21 Oct 2015")
        #expect(date.retryAfterSeconds == nil)
    }

    @Test(arguments: [
        ("ProvisionedThroughputExceededException", 400, AWSError.Reason.throttled),
        ("ThrottlingException", 400, .throttled),
        ("RequestLimitExceeded", 400, .throttled),
        ("TransactionConflictException", 400, .transactionConflict),
        ("ConditionalCheckFailedException", 400, .conditionalCheckFailed),
        ("InternalServerError", 500, .serverError),
        ("ServiceUnavailable", 503, .serverError),
        ("RequestTimeout", 400, .serverError),
        ("AccessDeniedException", 400, .accessDenied),
        ("ResourceInUseException", 400, .resourceInUse),
        ("SomethingNew", 400, .clientError),
    ])
    func classification(_ code: String, _ status: Int, _ reason: AWSError.Reason) {
        #expect(AWSErrorDecoder.classify(status: status, code: code) == reason)
    }
}
