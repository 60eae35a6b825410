import AWSJSON
import AttestCore
import DynamoDB
import FoundationEssentials
import HTTPClient
import SigV4
import Synchronization

/// Deterministic bytes: `value` repeated (0 → no backoff jitter).
struct ConstantRandom: RandomSource {
    var value: UInt8 = 0
    func bytes(_ count: Int) -> [UInt8] { [UInt8](repeating: value, count: count) }
}

/// Different bytes on every call (own-write tokens must differ between calls).
final class CountingRandom: RandomSource {
    private let counter = Atomic<UInt8>(0)
    func bytes(_ count: Int) -> [UInt8] {
        let value = counter.add(1, ordering: .sequentiallyConsistent).newValue
        return [UInt8](repeating: value, count: count)
    }
}

enum Fixture {
    static let credentials = SigV4Credentials(
        accessKeyID: "testing",
        secretAccessKey: "testing",
        sessionToken: "testing"
    )

    static func configuration(endpoint: String) -> AWSServiceConfiguration {
        DynamoDBClient.configuration(
            try! AWSEnvironment([
                "AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing", "AWS_SESSION_TOKEN": "testing",
                "AWS_REGION": "us-east-1", "DYNAMODB_ENDPOINT": endpoint,
            ])
        )
    }

    static func client(
        _ transport: any HTTPTransport,
        endpoint: String = "http://127.0.0.1:9"
    )
        -> DynamoDBClient
    {
        DynamoDBClient(
            configuration: configuration(endpoint: endpoint),
            transport: transport,
            random: ConstantRandom()
        )
    }

    static func ok(_ body: String) -> HTTPResponse {
        let bytes = Array(body.utf8)
        return HTTPResponse(
            status: 200,
            headers: [HTTPHeader("x-amz-crc32", String(CRC32.checksum(bytes)))],
            body: bytes
        )
    }

    static let table = Table(name: "attestgate-test")

    static func key(_ pk: String, _ sk: String) -> Item { ["PK": .s(pk), "SK": .s(sk)] }

    static func body(_ request: HTTPRequest) throws -> JSONValue { try JSONValue.parse(request.body) }
}
