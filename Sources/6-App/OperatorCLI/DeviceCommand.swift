internal import App
internal import AttestCore
internal import DynamoDB
internal import FoundationEssentials
internal import Gate

/// `attestgate device show|block|unblock|grant`: one device's state and the live controls on it
/// (docs/operations.md, "Live controls"). JSON on stdout, the audit line on stderr; exit 0 done, 1 refused or
/// failed, 2 usage error.
enum DeviceCommand {
    static let usage = """
        usage: attestgate device show DEVICE_ID
               attestgate device block DEVICE_ID --reason R | device block --key KEY_ID --reason R
               attestgate device unblock DEVICE_ID | device unblock --key KEY_ID
               attestgate device grant DEVICE_ID --feature F --calls N     (today only, N in 1...10000)
        """

    static func run(_ arguments: [String], environment: Environment = .process(), now: Date = Date()) async -> Int32 {
        guard let verb = arguments.first, ["show", "block", "unblock", "grant"].contains(verb) else {
            return CLIOutput.usageError(usage)
        }
        guard let request = Request(verb, Array(arguments.dropFirst())) else { return CLIOutput.usageError(usage) }
        guard let context = ControlContext.load(environment, now: now) else { return 1 }
        let controls = DeviceControls(table: context.table)
        do {
            switch request {
            case .show(let deviceID):
                CLIOutput.json(DeviceReport.render(try await controls.rows(deviceID: deviceID), context: context))
                return 0
            case .block(.device(let deviceID), let reason):
                let already = try await controls.block(deviceID: deviceID, reason: reason, stamp: context.stamp)
                await context.audit("device.block", ["device": .string(deviceID), "reason": .string(reason)])
                CLIOutput.json(.object(["blocked": .string(deviceID), "alreadyBlocked": .bool(already)]))
                return 0
            case .block(.key(let keyID), let reason):
                return await keyResult(
                    try await controls.blockKey(keyID, reason: reason, stamp: context.stamp),
                    action: "device.block_key",
                    keyID: keyID,
                    reason: reason,
                    context: context
                )
            case .unblock(.device(let deviceID)):
                guard try await controls.unblock(deviceID: deviceID) else {
                    return CLIOutput.failure("not_blocked", "device \(deviceID) is not blocked")
                }
                await context.audit("device.unblock", ["device": .string(deviceID)])
                CLIOutput.json(.object(["unblocked": .string(deviceID)]))
                return 0
            case .unblock(.key(let keyID)):
                return await keyResult(
                    try await controls.unblockKey(keyID),
                    action: "device.unblock_key",
                    keyID: keyID,
                    reason: nil,
                    context: context
                )
            case .grant(let deviceID, let feature, let calls):
                guard context.configuration.routes.contains(where: { $0.feature == feature }) else {
                    return CLIOutput.failure("unknown_feature", "no route meters the feature \(feature)")
                }
                let day = context.today
                let granted = try await controls.grant(
                    deviceID: deviceID,
                    feature: feature,
                    calls: calls,
                    day: day,
                    stamp: context.stamp
                )
                await context.audit(
                    "device.grant",
                    [
                        "device": .string(deviceID), "feature": .string(feature), "calls": .int(Int64(calls)),
                        "day": .string(day),
                    ]
                )
                CLIOutput.json(
                    .object([
                        "device": .string(deviceID), "feature": .string(feature), "day": .string(day),
                        "calls": .int(Int64(calls)), "grantedToday": .int(Int64(granted)),
                    ])
                )
                return 0
            }
        } catch {
            return CLIOutput.failure(error.reason, error.detail)
        }
    }

    private static func keyResult(
        _ result: DeviceControls.KeyResult,
        action: String,
        keyID: [UInt8],
        reason: String?,
        context: ControlContext
    ) async -> Int32 {
        let key = Bytes.base64(keyID)
        switch result {
        case .unknownKey:
            return CLIOutput.failure("unknown_key", "no device ID ever registered the key \(key)")
        case .replaced(let deviceID):
            let what = action == "device.block_key" ? "holds another key now" : "does not hold a block of this key"
            return CLIOutput.failure("key_not_current", "device \(deviceID) \(what)")
        case .applied(let deviceID):
            var details: [String: JSONValue] = ["key": .string(key), "device": .string(deviceID)]
            if let reason { details["reason"] = .string(reason) }
            await context.audit(action, details)
            CLIOutput.json(
                .object([
                    action == "device.block_key" ? "blockedKey" : "unblockedKey": .string(key),
                    "device": .string(deviceID),
                ])
            )
            return 0
        }
    }

    /// What a control acts on.
    enum Target: Equatable {
        case device(String)
        case key([UInt8])
    }

    /// The parsed command line; nil (with a message) for anything malformed.
    enum Request: Equatable {
        case show(String)
        case block(Target, reason: String)
        case unblock(Target)
        case grant(String, feature: String, calls: Int)

        init?(_ verb: String, _ rest: [String]) {
            // The device ID first (or --key), then options.
            var rest = rest
            var target: Target?
            if let first = rest.first, !first.hasPrefix("--") {
                guard let deviceID = DeviceID.canonical(first) else {
                    CLIOutput.usage("not a device ID (a UUID): \(first)")
                    return nil
                }
                target = .device(deviceID)
                rest.removeFirst()
            }
            let allowed: Set<String> =
                switch verb {
                case "block": ["--reason", "--key"]
                case "unblock": ["--key"]
                case "grant": ["--feature", "--calls"]
                default: []
                }
            guard let options = CommandOptions(rest, values: allowed, flags: []) else { return nil }
            if let key = options["--key"] {
                guard target == nil, let keyID = Self.keyID(key) else {
                    CLIOutput.usage("--key takes an App Attest key ID (base64 of 32 bytes), in place of a device ID")
                    return nil
                }
                target = .key(keyID)
            }
            guard let target else {
                CLIOutput.usage("a device ID (or --key) is needed")
                return nil
            }
            switch (verb, target) {
            case ("show", .device(let deviceID)):
                self = .show(deviceID)
            case ("block", _):
                guard let reason = options["--reason"], Self.isReason(reason) else {
                    CLIOutput.usage("--reason is needed: 1-64 characters of a-z, 0-9, '.', '_', '-'")
                    return nil
                }
                self = .block(target, reason: reason)
            case ("unblock", _):
                self = .unblock(target)
            case ("grant", .device(let deviceID)):
                guard let feature = options["--feature"], !feature.isEmpty,
                    let text = options["--calls"], let calls = Int(text), (1...10_000).contains(calls)
                else {
                    CLIOutput.usage("grant needs --feature F and --calls N (1...10000)")
                    return nil
                }
                self = .grant(deviceID, feature: feature, calls: calls)
            default:
                CLIOutput.usage("\(verb) takes a device ID")
                return nil
            }
        }

        /// A reason is a slug, as the log's reasons are: it is stored and logged, never free text.
        static func isReason(_ text: String) -> Bool {
            (1...64).contains(text.utf8.count)
                && text.utf8.allSatisfy {
                    (0x61...0x7A).contains($0) || (0x30...0x39).contains($0) || [0x2E, 0x5F, 0x2D].contains($0)
                }
        }

        /// A key ID as App Attest gives it (base64 of the key's 32-byte SHA-256), base64 or base64url.
        static func keyID(_ text: String) -> [UInt8]? {
            guard let bytes = Bytes.fromBase64(text) ?? Bytes.fromBase64URL(text), bytes.count == 32 else { return nil }
            return bytes
        }
    }
}
