internal import App
internal import AttestCore
internal import Dialects
internal import FoundationEssentials
internal import Gate

/// `attestgate ceiling show|raise`: the day's ceiling as its rows hold it, and a raise of today's (or a coming
/// day's) limits above the configured ones (docs/operations.md, "Live controls"). JSON on stdout, the audit
/// line on stderr; exit 0 done, 1 refused or failed, 2 usage error.
enum CeilingCommand {
    static let usage = """
        usage: attestgate ceiling show [--day YYYY-MM-DD]
               attestgate ceiling raise --calls N | --usd X [--day YYYY-MM-DD]   (never below the configured limit
               or what the day has reserved; both flags may be given)
        """

    static func run(_ arguments: [String], environment: Environment = .process(), now: Date = Date()) async -> Int32 {
        guard let verb = arguments.first, ["show", "raise"].contains(verb),
            let options = CommandOptions(
                Array(arguments.dropFirst()),
                values: verb == "show" ? ["--day"] : ["--day", "--calls", "--usd"],
                flags: []
            )
        else { return CLIOutput.usageError(usage) }
        if let day = options["--day"], !Self.isDay(day) { return CLIOutput.usageError("--day takes YYYY-MM-DD") }
        var calls: Int64?
        var micros: Int64?
        if verb == "raise" {
            if let text = options["--calls"] {
                guard let value = Int64(text), (1...1_000_000_000).contains(value) else {
                    return CLIOutput.usageError("--calls takes a whole number of calls (1...1000000000)")
                }
                calls = value
            }
            if let text = options["--usd"] {
                guard text.utf8.count <= 20, let value = TokenPrice(usd: text)?.microUSDPerMTok, value > 0 else {
                    return CLIOutput.usageError("--usd takes dollars with at most six decimals, e.g. 250 or 12.5")
                }
                micros = value
            }
            guard calls != nil || micros != nil else { return CLIOutput.usageError(usage) }
        }
        guard let context = ControlContext.load(environment, now: now) else { return 1 }
        let configured = CeilingRaise(
            calls: Int64(context.configuration.aiDailyCallCeiling),
            micros: context.configuration.aiDailyCostCeilingMicros
        )
        let day = options["--day"] ?? context.today
        let controls = CeilingControls(table: context.table, shards: context.configuration.aiCeilingShards)
        do {
            let state = try await controls.day(day)
            guard verb == "raise" else {
                CLIOutput.json(render(state, day: day, configured: configured))
                return 0
            }
            if calls != nil, configured.calls == 0 {
                return CLIOutput.failure(
                    "no_call_ceiling",
                    "AI_DAILY_CALL_CEILING is 0: there is no call ceiling to raise"
                )
            }
            if micros != nil, configured.micros == 0 {
                return CLIOutput.failure(
                    "no_cost_ceiling",
                    "AI_DAILY_COST_CEILING_USD is 0: there is no money ceiling to raise"
                )
            }
            if day < context.today {
                return CLIOutput.failure("day_past", "\(day) is over: only today or a coming day can be raised")
            }
            let current = state.raise ?? configured
            let raise = CeilingRaise(calls: calls ?? current.calls, micros: micros ?? current.micros)
            if raise.calls < configured.calls || raise.micros < configured.micros {
                return CLIOutput.failure(
                    "below_configured",
                    "a raise cannot go below the configured limits (\(configured.calls) calls, \(configured.micros) micro-dollars)"
                )
            }
            if (configured.calls > 0 && raise.calls < state.calls)
                || (configured.micros > 0 && raise.micros < state.reservedMicros)
            {
                return CLIOutput.failure(
                    "below_reserved",
                    "the day has already reserved \(state.calls) calls and \(state.reservedMicros) micro-dollars"
                )
            }
            try await controls.raise(day, to: raise, stamp: context.stamp)
            await context.audit(
                "ceiling.raise",
                [
                    "day": .string(day), "calls": .int(raise.calls), "costMicros": .int(raise.micros),
                    "previous": .string(current.attribute),
                ]
            )
            var after = state
            after.raise = raise
            after.mixedRaise = false
            CLIOutput.json(render(after, day: day, configured: configured))
            return 0
        } catch {
            return CLIOutput.failure(error.reason, error.detail)
        }
    }

    /// The day as `ceiling show` prints it: per limit, configured, in force, reserved and left.
    static func render(_ state: CeilingControls.Day, day: String, configured: CeilingRaise) -> JSONValue {
        let limits = state.raise ?? configured
        var out: [String: JSONValue] = [
            "day": .string(day),
            "calls": .object([
                "configured": .int(configured.calls), "limit": .int(limits.calls), "reserved": .int(state.calls),
                "left": .int(limits.calls == 0 ? 0 : max(0, limits.calls - state.calls)),
                "warned": .bool(state.warned),
            ]),
            "costMicros": .object([
                "configured": .int(configured.micros), "limit": .int(limits.micros),
                "reserved": .int(state.reservedMicros), "settled": .int(state.settledMicros),
                "drift": .int(state.driftMicros),
                "left": .int(limits.micros == 0 ? 0 : max(0, limits.micros - state.reservedMicros)),
                "warned": .bool(state.costWarned),
            ]),
            "raised": .bool(state.raise != nil),
        ]
        if state.mixedRaise { out["raiseBeingWritten"] = .bool(true) }
        return .object(out)
    }

    static func isDay(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        guard bytes.count == 10, bytes[4] == 0x2D, bytes[7] == 0x2D else { return false }
        return bytes.enumerated().allSatisfy { [4, 7].contains($0.offset) || (0x30...0x39).contains($0.element) }
    }
}
