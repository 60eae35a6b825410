import AWSJSON
import AttestCore
import FoundationEssentials
import HTTPClient
import SigV4
import Synchronization

/// Deterministic "random" bytes: every byte is `value` (0x00 → jitter 0, no waiting in retry tests).
struct ConstantRandom: RandomSource {
    var value: UInt8 = 0
    func bytes(_ count: Int) -> [UInt8] { [UInt8](repeating: value, count: count) }
}

enum Fixture {
    /// 2015-08-30T12:36:00Z, the SigV4 suites' instant.
    static let date = Date(timeIntervalSince1970: 1_440_938_160)
    static let credentials = SigV4Credentials(
        accessKeyID: "AKIDEXAMPLE",
        secretAccessKey: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY",
        sessionToken: "SESSIONTOKEN"
    )

    static func dynamoDB(endpoint: String = "https://dynamodb.us-east-1.amazonaws.com") -> AWSServiceConfiguration {
        AWSServiceConfiguration(
            endpoint: endpoint,
            region: "us-east-1",
            signingName: "dynamodb",
            targetPrefix: "DynamoDB_20120810",
            protocolVersion: .json10,
            credentials: credentials
        )
    }

    static func client(
        _ transport: any HTTPTransport,
        _ configuration: AWSServiceConfiguration = dynamoDB()
    )
        -> AWSJSONClient
    {
        AWSJSONClient(
            configuration: configuration,
            transport: transport,
            clock: FixedClock(date),
            random: ConstantRandom()
        )
    }

    static func ok(_ body: String, crc: Bool = true) -> HTTPResponse {
        let bytes = Array(body.utf8)
        return HTTPResponse(
            status: 200,
            headers: crc ? [HTTPHeader("x-amz-crc32", String(CRC32.checksum(bytes)))] : [],
            body: bytes
        )
    }

    static func error(
        _ status: Int,
        _ type: String,
        _ message: String = "m",
        headers: [HTTPHeader] = []
    )
        -> HTTPResponse
    {
        let body = Array("{\"__type\":\"com.amazonaws.dynamodb.v20120810#\(type)\",\"message\":\"\(message)\"}".utf8)
        return HTTPResponse(
            status: status,
            headers: headers + [HTTPHeader("x-amz-crc32", String(CRC32.checksum(body)))],
            body: body
        )
    }
}
