internal import AWSJSON
internal import AttestCore
import CivilTime
internal import Crypto
internal import DynamoDB
internal import FoundationEssentials
internal import HTTPClient

/// Reads the gate's counters straight from the table (docs/api.md section 6), as an operator would:
/// the environment's ceiling row `AI_BUDGET#{day}/TOTAL`, allowance rows `QUOTA#{feature}#{day}` and device tiers.
struct Counters: Sendable {
    let client: DynamoDBClient
    let table: Table

    init(environment: [String: String]) throws {
        guard let name = environment["TABLE_NAME"] else { throw DemoError("TABLE_NAME is not set") }
        client = DynamoDBClient(
            configuration: DynamoDBClient.configuration(try AWSEnvironment(environment)),
            transport: CurlTransport(),
            random: SecureRandom()
        )
        table = Table(name: name)
    }

    /// Today in the budget's time zone (the local stack runs with `BUDGET_TIMEZONE=UTC`).
    static func today() -> String { LocalCalendar.utc.day(at: SystemClock().now()).iso }

    /// Unpaid upstream calls counted today against `AI_DAILY_CALL_CEILING`.
    func ceilingCalls() async throws -> Int {
        try await number("AI_BUDGET#\(Self.today())", "TOTAL", "calls")
    }

    /// Units of `feature` a guest device (or `USER#sub`) has used today.
    func allowanceUsed(partition: String, feature: String) async throws -> Int {
        try await number(partition, "QUOTA#\(feature)#\(Self.today())", "count")
    }

    /// A device ID's tier on its `PROFILE` row (`first`, `repeat`, `unknown`), nil when it has none.
    func tier(deviceID: String) async throws -> String? {
        let key: Item = ["PK": .s("DEVICE#\(deviceID)"), "SK": .s("PROFILE")]
        return try await client.getItem(table, key: key, deadline: .after(.seconds(5)))?["tier"]?.stringValue
    }

    private func number(_ pk: String, _ sk: String, _ attribute: String) async throws -> Int {
        let item = try await client.getItem(table, key: ["PK": .s(pk), "SK": .s(sk)], deadline: .after(.seconds(5)))
        return Int(item?[attribute]?.intValue ?? 0)
    }
}
