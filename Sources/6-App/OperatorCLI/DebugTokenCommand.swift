internal import App
internal import AttestCore
internal import CivilTime
internal import FoundationEssentials
internal import Gate

/// `attestgate debug-token create|list|revoke`: tokens that stand in for attestation on simulators, emulators
/// and CI (docs/clients.md, "Debug tokens"). The token is printed once, at creation; the table keeps only its
/// SHA-256. JSON on stdout, the audit line on stderr (never the token); exit 0 done, 1 refused or failed, 2 usage.
enum DebugTokenCommand {
    static let usage = """
        usage: attestgate debug-token create --name N --expires (Nh|Nd|YYYY-MM-DD) [--routes feature,feature]
               attestgate debug-token list
               attestgate debug-token revoke --name N
        (N: 1-64 of a-z 0-9 . _ -; at most 365 days; the deployment serves them only with DEBUG_TOKENS=on)
        """

    static func run(_ arguments: [String], environment: Environment = .process(), now: Date = Date()) async -> Int32 {
        guard let verb = arguments.first, ["create", "list", "revoke"].contains(verb),
            let options = CommandOptions(
                Array(arguments.dropFirst()),
                values: verb == "create" ? ["--name", "--expires", "--routes"] : verb == "revoke" ? ["--name"] : [],
                flags: []
            )
        else { return CLIOutput.usageError(usage) }
        let nowSeconds = Int64(now.timeIntervalSince1970)
        var expiresAt: Int64 = 0
        var routes: [String] = []
        if verb != "list" {
            guard let name = options["--name"], DebugToken.isName(name) else {
                return CLIOutput.usageError("--name takes 1-64 of a-z 0-9 . _ - (starting with a letter or digit)")
            }
        }
        if verb == "create" {
            guard let text = options["--expires"], let at = Self.expiry(text, now: nowSeconds) else {
                return CLIOutput.usageError(
                    "--expires takes Nh, Nd or YYYY-MM-DD: in the future, at most 365 days"
                )
            }
            expiresAt = at
            if let list = options["--routes"] {
                routes = list.split(separator: ",").map(String.init)
                guard !routes.isEmpty, routes.allSatisfy({ !$0.isEmpty }) else {
                    return CLIOutput.usageError("--routes takes features separated by commas")
                }
            }
        }
        guard let context = ControlContext.load(environment, now: now) else { return 1 }
        let store = DynamoDebugTokenStore(table: context.table)
        do {
            let tokens = try await store.list()
            switch verb {
            case "list":
                CLIOutput.json(.object(["tokens": .array(tokens.map { render($0, now: nowSeconds) })]))
                return 0
            case "create":
                let name = options["--name"] ?? ""
                let features = Set(context.configuration.routes.map(\.feature))
                if let unknown = routes.first(where: { !features.contains($0) }) {
                    return CLIOutput.failure("unknown_feature", "no route meters the feature \(unknown)")
                }
                if tokens.contains(where: { $0.name == name && $0.state(at: nowSeconds) == "active" }) {
                    return CLIOutput.failure("name_taken", "an active token is named \(name): revoke it first")
                }
                let text = DebugToken.mint(context.table.random)
                let token = DebugToken(
                    name: name,
                    hash: DebugToken.hash(of: text) ?? "",
                    createdBy: context.stamp.actor,
                    createdAt: nowSeconds,
                    expiresAt: expiresAt,
                    routes: routes
                )
                guard try await store.create(token) else {
                    return CLIOutput.failure("token_exists", "the minted token exists already: run again")
                }
                await context.audit(
                    "debug_token.create",
                    [
                        "name": .string(name), "id": .string(String(token.hash.prefix(12))),
                        "expiresAt": .int(expiresAt), "routes": .array(routes.map(JSONValue.string)),
                    ]
                )
                var out = render(token, now: nowSeconds)
                if case .object(var fields) = out {
                    fields["token"] = .string(text)
                    fields["note"] = .string("shown once: keep it in the CI system's secrets, never in the app")
                    if !context.configuration.debugTokens {
                        fields["warning"] = .string("this deployment has DEBUG_TOKENS=off: it ignores the token")
                    }
                    out = .object(fields)
                }
                CLIOutput.json(out)
                return 0
            default:
                let name = options["--name"] ?? ""
                let live = tokens.filter { $0.name == name && $0.revokedAt == nil }
                guard !live.isEmpty else {
                    return CLIOutput.failure("not_found", "no unrevoked token is named \(name)")
                }
                for token in live {
                    _ = try await store.revoke(token, by: context.stamp.actor, at: nowSeconds)
                    await context.audit(
                        "debug_token.revoke",
                        ["name": .string(name), "id": .string(String(token.hash.prefix(12)))]
                    )
                }
                CLIOutput.json(.object(["revoked": .string(name), "tokens": .int(Int64(live.count))]))
                return 0
            }
        } catch {
            return CLIOutput.failure(error.reason, error.detail)
        }
    }

    /// A token as `list` shows it: never its text, its hash only as a 12-digit id.
    static func render(_ token: DebugToken, now: Int64) -> JSONValue {
        var fields: [String: JSONValue] = [
            "name": .string(token.name), "id": .string(String(token.hash.prefix(12))),
            "createdBy": .string(token.createdBy), "createdAt": .int(token.createdAt),
            "expiresAt": .int(token.expiresAt), "routes": .array(token.routes.map(JSONValue.string)),
            "state": .string(token.state(at: now)),
        ]
        if let by = token.revokedBy { fields["revokedBy"] = .string(by) }
        return .object(fields)
    }

    /// `Nh`, `Nd` from now, or the end of a UTC day `YYYY-MM-DD`; nil unless in the future and within 365 days.
    static func expiry(_ text: String, now: Int64) -> Int64? {
        var at: Int64?
        if let unit = text.last, unit == "h" || unit == "d", let count = Int64(text.dropLast()), count > 0,
            count <= 365 * 24
        {
            at = now + count * (unit == "h" ? 3600 : 86_400)
        } else if CeilingCommand.isDay(text) {
            let parts = text.split(separator: "-").compactMap { Int($0) }
            if parts.count == 3, (1...12).contains(parts[1]), (1...31).contains(parts[2]) {
                at = (CivilDate(year: parts[0], month: parts[1], day: parts[2]).daysSinceEpoch + 1) * 86_400
            }
        }
        guard let at, at > now, at <= now + 365 * 86_400 else { return nil }
        return at
    }
}
