import AWSJSON
import AttestCore
import Crypto
import DynamoDB
import FoundationEssentials
import Gate
import HTTPClient
import TestSupport

/// One printed line: a check and whether it passed.
struct Line: Sendable {
    let passed: Bool
    let write: String
    let method: String
    let outcome: String
    let control: String
    /// A finding printed for the record (a known limit), not counted as passed or failed.
    var note = false

    var text: String {
        "\(note ? "NOTE" : passed ? "PASS" : "FAIL") | \(write) | \(method) | \(outcome) | control: \(control)"
    }
}

struct Runner: Sendable {
    let harness: Harness
    /// Slugs whose product write runs without its token (the self-test: the check must then fail).
    let broken: Set<String>
    let now = Date(timeIntervalSince1970: 1_796_040_000)

    /// What one run of a write under one resend method left: its observation and how many resends happened.
    struct Run {
        let observation: Observation
        let resends: Int
        /// How many writes lost their token on the wire (nil when the run kept them).
        let tokensRemoved: Int?
        let transport: RecordingTransport
        let ids: RunIDs
    }

    func execute(
        _ check: WriteCheck,
        _ method: ResendMethod,
        safety: WriteSafety,
        body: @escaping @Sendable (RunContext) async throws -> Observation
    ) async throws -> Run {
        let ids = RunIDs.next()
        let transport = RecordingTransport()
        let wire = Harness.wire(transport, safety, resend: method == .hook)
        let client = try harness.client(
            endpoint: method == .proxy ? harness.proxyEndpoint : nil,
            transport: wire.transport
        )
        let proxy = harness.proxy
        let match = check.match(ids)
        let skip = check.lossSkip
        let transactional = check.transactional
        if method == .proxy { try await proxy.reset() }
        let context = RunContext(
            harness: harness,
            plain: try harness.plain(),
            writer: harness.gateTable(client),
            ids: ids,
            now: now,
            arm: {
                guard method == .proxy else { return }
                // A give-back is a transaction (its marker and the counter), and so is its control (the marker
                // taken out on the wire, `TokenlessTransport`).
                try await proxy.arm(
                    match: match,
                    skip: skip,
                    operation: transactional ? "TransactWriteItems" : "UpdateItem"
                )
            }
        )
        let observation = try await body(context)
        let resends = if let hook = wire.resending { hook.resent } else { try await proxy.lostUpdates() }
        return Run(
            observation: observation,
            resends: resends,
            tokensRemoved: wire.tokenless?.stripped,
            transport: transport,
            ids: ids
        )
    }

    static func resendText(_ method: ResendMethod, _ count: Int) -> String {
        method == .hook ? "resent \(count)×" : "\(count) answer\(count == 1 ? "" : "s") lost"
    }

    /// The product write and its control under one resend method.
    func check(_ check: WriteCheck, _ method: ResendMethod) async -> (Line, Run?) {
        let productSafety: WriteSafety = broken.contains(check.slug) ? .tokensRemoved : .ownWriteTokens
        let label = productSafety == .ownWriteTokens ? "product" : "product WITH ITS TOKEN REMOVED (--break)"
        do {
            let product = try await execute(check, method, safety: productSafety, body: check.run)
            var outcome = "\(label): \(product.observation.text) [\(Self.resendText(method, product.resends))]"
            var passed = product.observation.correct && product.resends > 0
            if product.resends == 0 { outcome += " — NO RESEND HAPPENED, nothing was shown" }

            let tokenless = try await execute(check, method, safety: .tokensRemoved, body: check.run)
            if tokenless.tokensRemoved == 0 {
                passed = false
                outcome += " — the token-less control found NO TOKEN (or marker) to remove in the product's write"
            }
            let controlName = check.transactional ? "marker-less product give-back" : "token-less product write"
            var controls: [(name: String, run: Run, mustBreak: Bool)] = [
                (controlName, tokenless, check.tokenlessBreaks)
            ]
            if let preFix = check.preFixControl {
                let pre = try await execute(check, method, safety: .tokensRemoved, body: preFix)
                controls.append(("pre-fix form (harness-written)", pre, true))
            }
            var parts: [String] = []
            for (name, run, mustBreak) in controls {
                var text = "\(name): \(run.observation.text) [\(Self.resendText(method, run.resends))]"
                if !mustBreak {
                    text =
                        "\(name): "
                        + (run.observation.correct
                            ? "also correct — idempotent, the token is not what protects it"
                            : "\(run.observation.text) (idempotent write broke: unexpected)")
                } else if run.observation.correct {
                    passed = false
                    text += " — CONTROL DID NOT BREAK: the check cannot tell a broken write from a good one"
                } else if run.resends == 0 {
                    passed = false
                    text += " — NO RESEND HAPPENED in the control"
                }
                parts.append(text)
            }
            let control = parts.joined(separator: "; ")
            return (
                Line(passed: passed, write: check.write, method: method.rawValue, outcome: outcome, control: control),
                product
            )
        } catch {
            let line = Line(
                passed: false,
                write: check.write,
                method: method.rawValue,
                outcome: "harness error: \(error)",
                control: "-"
            )
            return (line, nil)
        }
    }

    // MARK: broken expressions

    /// Shows that the expression builder refuses a broken expression before sending, and that the server
    /// refuses the product's own captured write when its condition is broken and sent raw.
    func brokenExpressions(_ check: WriteCheck, captured run: Run?) async -> Line {
        func line(_ passed: Bool, _ outcome: String, _ control: String) -> Line {
            Line(passed: passed, write: check.write, method: "broken expression", outcome: outcome, control: control)
        }
        guard let run, let body = run.transport.lastUpdate(containing: check.match(run.ids)) else {
            return line(false, "no captured product write to break", "-")
        }
        do {
            let document = try JSONValue.parse(body)
            guard case .object(var input) = document, let keyJSON = input["Key"],
                let condition = input["ConditionExpression"]?.stringValue
            else { return line(false, "the captured write has no condition", "-") }
            let key = try AttributeValue.item(json: keyJSON)

            // 1. Our builder: nothing leaves the process.
            var builder: [String] = []
            var passed = true
            let transport = RecordingTransport()
            let client = try harness.client(transport: transport)
            let attempts: [(String, DynamoExpression)] = [
                ("'(' unbalanced", "(attribute_exists(\(name: "PK"))"),
                ("':nope' undefined", "\(name: "PK") <> :nope"),
            ]
            for (name, broken) in attempts {
                do {
                    try await client.updateItem(
                        UpdateItem(
                            table: harness.table,
                            key: key,
                            update: UpdateExpression(set: ["\(name: "probe") = \(value: .number(1))"]),
                            condition: broken
                        ),
                        deadline: .after(.seconds(5))
                    )
                    passed = false
                    builder.append("\(name) ACCEPTED by the builder")
                } catch  where error.reason == .invalidExpression {
                    builder.append("\(name) refused")
                } catch {
                    passed = false
                    builder.append("\(name) failed otherwise: \(error.reason)")
                }
            }
            if transport.sent != 0 { passed = false }
            let builderText =
                "builder: \(builder.joined(separator: ", ")) before sending (dynamodb.invalid_expression, "
                + "\(transport.sent) requests sent)"

            // 2. The server: the product's captured write, its condition broken, sent raw (no retries).
            let raw = AWSJSONClient(
                configuration: try Harness.configuration(endpoint: harness.moto)
                    .with(retry: RetryPolicy(maxAttempts: 1, baseDelay: .zero, maxBackoff: .zero)),
                transport: CurlTransport(),
                clock: SystemClock(),
                random: SecureRandom()
            )
            let before = try await harness.row(key)
            var server: [String] = []
            let variants: [(String, String)] = [
                ("'(' prepended (unbalanced)", "(" + condition),
                ("'AND PK <> :nope' appended (undefined placeholder)", "(" + condition + ") AND PK <> :nope"),
            ]
            for (name, broken) in variants {
                input["ConditionExpression"] = .string(broken)
                do {
                    _ = try await raw.call("UpdateItem", .object(input), deadline: .after(.seconds(5)))
                    passed = false
                    server.append("\(name) → ACCEPTED")
                } catch {
                    if error.code == "ValidationException" {
                        server.append("\(name) → 400 ValidationException")
                    } else if error.status == 500 {
                        server.append("\(name) → HTTP 500 (moto's condition parser raised; DynamoDB says 400)")
                    } else {
                        passed = false
                        server.append("\(name) → NOT REFUSED AS INVALID: \(error.reason)")
                    }
                }
            }
            let after = try await harness.row(key)
            if before != after { passed = false }
            let rowText = before == after ? "row unchanged" : "ROW CHANGED"

            // The same captured write with its condition intact is evaluated, not refused as invalid.
            input["ConditionExpression"] = .string(condition)
            var intact: String
            do {
                _ = try await raw.call("UpdateItem", .object(input), deadline: .after(.seconds(5)))
                intact = "applied"
            } catch  where error.reason == .conditionalCheckFailed {
                intact = "condition evaluated (ConditionalCheckFailedException: its own token is there)"
            } catch {
                passed = false
                intact = "REFUSED: \(error.reason)"
            }
            return line(
                passed,
                "\(builderText); server: captured product write with \(server.joined(separator: "; ")); \(rowText)",
                "the same captured write, condition intact: \(intact)"
            )
        } catch {
            return line(false, "harness error: \(error)", "-")
        }
    }
}
