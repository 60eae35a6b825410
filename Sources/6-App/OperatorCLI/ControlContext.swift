internal import AWSJSON
internal import App
internal import AttestCore
internal import CivilTime
internal import Crypto
internal import DynamoDB
internal import FoundationEssentials
internal import Gate
internal import HTTPClient

/// What every live control needs (`attestgate device …`, `attestgate ceiling …`; docs/operations.md, "Live
/// controls"): the function's settings read as the Lambda reads them, the table, who acts, and the audit trail.
struct ControlContext {
    let configuration: Configuration
    let table: GateTable
    let stamp: DeviceControls.Stamp
    /// Who acts, from the environment: `ATTESTGATE_OPERATOR` or `USER`, and the AWS identity's non-secret
    /// parts (the access key ID, as CloudTrail logs it; the profile; the role session).
    let identity: [String: JSONValue]

    /// The context, or nil after printing why not (exit 1: the settings are invalid or name no table).
    static func load(_ environment: Environment, now: Date) -> ControlContext? {
        let configuration: Configuration
        do {
            configuration = try Configuration(environment: environment)
        } catch {
            CLIOutput.json(.object(["result": .string("invalid"), "errors": error.summary]))
            CLIOutput.usage("the controls read the function's settings: export its environment first")
            return nil
        }
        let aws: AWSEnvironment
        do {
            aws = try AWSEnvironment(environment.values)
        } catch {
            CLIOutput.json(.object(["error": .string(error.reason.slug)]))
            return nil
        }
        let random = SecureRandom()
        let client = DynamoDBClient(
            configuration: DynamoDBClient.configuration(aws),
            transport: CurlTransport(),
            random: random
        )
        let actor = environment["ATTESTGATE_OPERATOR"] ?? environment["USER"] ?? "unknown"
        var identity: [String: JSONValue] = ["actor": .string(actor)]
        for (key, name) in [
            ("awsAccessKeyId", "AWS_ACCESS_KEY_ID"), ("awsProfile", "AWS_PROFILE"),
            ("awsRoleSessionName", "AWS_ROLE_SESSION_NAME"), ("awsRoleArn", "AWS_ROLE_ARN"),
        ] {
            if let value = environment[name] { identity[key] = .string(value) }
        }
        return ControlContext(
            configuration: configuration,
            table: GateTable(client: client, table: Table(name: configuration.tableName), random: random),
            stamp: DeviceControls.Stamp(actor: actor, at: now),
            identity: identity
        )
    }

    /// Today in the budget's calendar (`BUDGET_TIMEZONE`), as the allowances and the ceiling count days.
    var today: String { configuration.budgetCalendar.day(at: stamp.at).iso }

    /// Today in UTC, as the challenge counts keep days.
    var utcToday: String { LocalCalendar.utc.day(at: stamp.at).iso }

    /// The audit line of a control that applied: one JSON line on stderr (`"audit": true`, who, what, when)
    /// and the same as a row `AUDIT#{UTC day}` / `{epoch ms}#{random}` kept 400 days.
    /// - Returns: false when the row could not be written (the control itself applied).
    @discardableResult
    func audit(_ action: String, _ details: [String: JSONValue]) async -> Bool {
        let millis = Int64((stamp.at.timeIntervalSince1970 * 1000).rounded(.down))
        var line = identity
        line["audit"] = .bool(true)
        line["action"] = .string(action)
        line["at"] = .int(millis)
        line["environment"] = .string(configuration.environment.rawValue)
        for (key, value) in details { line[key] = value }
        CLIOutput.usage(JSONValue.object(line).serialized)

        let day = LocalCalendar.utc.day(at: stamp.at).iso
        var item = GateTable.key("AUDIT#\(day)", "\(millis)#\(Bytes.hex(table.random.bytes(4)))")
        item["entry"] = .s(JSONValue.object(line).serialized)
        item[Table.ttlAttribute] = .number(Int64(stamp.at.timeIntervalSince1970) + 400 * 86_400)
        do {
            _ = try await table.client.putItem(
                PutItem(table: table.table, item: item, returnOldItemOnConditionFailure: false),
                deadline: .after(.seconds(15))
            )
            return true
        } catch {
            CLIOutput.usage("the audit row was not written (\(error.reason.slug)); the line above is the record")
            return false
        }
    }
}
