package import AWSJSON
package import AttestCore
package import HTTPClient

/// DynamoDB over its AWS JSON 1.0 API (`X-Amz-Target: DynamoDB_20120810.<Operation>`), SigV4-signed,
/// with the SDKs' standard retries (see `AWSJSONClient`, `RetryPolicy`).
///
/// Every call takes a `Deadline`; nothing waits past it. Input is checked before anything is sent
/// (`ItemLimits`, `ExpressionRenderer`), so a bad request fails with a typed `DynamoDBError` and no traffic.
/// Conditional writes that must recognise their own resend go through `ownWriteUpdate`/`ownWritePut`.
package struct DynamoDBClient: Sendable {
    package let client: AWSJSONClient

    package init(
        configuration: AWSServiceConfiguration,
        transport: any HTTPTransport,
        clock: any WallClock = SystemClock(),
        random: any RandomSource
    ) {
        self.client = AWSJSONClient(configuration: configuration, transport: transport, clock: clock, random: random)
    }

    /// The service configuration for `environment` (credentials, region, `DYNAMODB_ENDPOINT`).
    package static func configuration(_ environment: AWSEnvironment) -> AWSServiceConfiguration {
        AWSServiceConfiguration(
            endpoint: environment.dynamoDBURL,
            region: environment.region,
            signingName: "dynamodb",
            targetPrefix: "DynamoDB_20120810",
            protocolVersion: .json10,
            credentials: environment.credentials
        )
    }

    // MARK: plumbing

    func call(
        _ operation: String,
        _ input: [String: JSONValue],
        deadline: Deadline
    ) async throws(DynamoDBError)
        -> JSONValue
    {
        do {
            return try await client.call(operation, .object(input), deadline: deadline)
        } catch {
            throw DynamoDBError(error)
        }
    }

    func attributes(_ output: JSONValue) throws(DynamoDBError) -> Item? {
        guard let attributes = output["Attributes"] else { return nil }
        return try AttributeValue.item(json: attributes)
    }

    static func addReturnOptions(
        _ input: inout [String: JSONValue],
        _ values: ReturnValues,
        _ oldOnFailure: Bool
    ) {
        if values != .none { input["ReturnValues"] = .string(values.rawValue) }
        if oldOnFailure { input["ReturnValuesOnConditionCheckFailure"] = .string("ALL_OLD") }
    }
}
