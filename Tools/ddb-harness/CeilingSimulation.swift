import AWSJSON
import AttestCore
import Crypto
import DynamoDB
import FoundationEssentials
import Gate
import HTTPClient
import Synchronization

/// `ddb-harness ceiling-sim`: the ceiling's own writes at a fixed offered rate, open loop, against the
/// DynamoDB endpoint (the stand-in, `local-harness/ddb_standin.py`), for `make bench`'s scaled simulation
/// (docs/dynamodb.md, "Capacity"). Each call reserves its worst case on the sharded ceiling
/// (`DynamoCeilingStore`), waits the provider's time, and settles to its cost: the two writes every unpaid
/// priced call makes on the ceiling, without the rest of the gate, so the stand-in's own CPU is spent on
/// the items under test. Prints one JSON line.
///
/// usage: ddb-harness ceiling-sim --shards N --rate CALLS_PER_S --seconds S [--provider-ms 150]
///        [--worst 306] [--cost 50]
struct CeilingSimulation {
    var shards = 1
    var rate = 10.0
    var seconds = 10.0
    var providerMs = 150
    var worst: Int64 = 306
    var cost: Int64 = 50

    init(_ arguments: [String]) {
        var iterator = arguments.makeIterator()
        while let flag = iterator.next() {
            guard let value = iterator.next() else { fail("\(flag) needs a value") }
            switch flag {
            case "--shards": shards = Int(value) ?? 0
            case "--rate": rate = Double(value) ?? 0
            case "--seconds": seconds = Double(value) ?? 0
            case "--provider-ms": providerMs = Int(value) ?? -1
            case "--worst": worst = Int64(value) ?? 0
            case "--cost": cost = Int64(value) ?? -1
            default: fail("ceiling-sim: unknown flag \(flag)")
            }
        }
        guard shards >= 1, rate > 0, rate <= 10_000, seconds > 0, seconds <= 600, providerMs >= 0, worst > 0,
            cost >= 0, cost <= worst
        else { fail("ceiling-sim: bad arguments") }
    }

    struct Tally: Sendable {
        var admitted = 0
        var refused = 0
        var reserveErrors: [String: Int] = [:]
        var settleErrors: [String: Int] = [:]
        var storeMicros: [Int64] = []
    }

    /// The calls' shared tally (a class: the tasks share one).
    final class Tallies: Sendable {
        let state = Mutex(Tally())
        func withLock<T: Sendable>(_ body: (inout Tally) -> T) -> T { state.withLock { body(&$0) } }
    }

    func run(endpoint: String) async -> JSONValue {
        let environment: AWSEnvironment
        do {
            environment = try AWSEnvironment([
                "AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing", "AWS_REGION": "us-east-1",
                "DYNAMODB_ENDPOINT": endpoint,
            ])
        } catch { fail("ceiling-sim: \(error)") }
        let client = DynamoDBClient(
            configuration: DynamoDBClient.configuration(environment),
            transport: CurlTransport(),
            random: SecureRandom()
        )
        let table = Table(name: "ceiling-sim-\(Bytes.hex(SecureRandom().bytes(6)))")
        do { _ = try await client.createTable(table, deadline: .after(.seconds(10))) } catch {
            fail("ceiling-sim: cannot create \(table.name): \(error)")
        }
        let store = DynamoCeilingStore(
            table: GateTable(client: client, table: table, random: SecureRandom()),
            shards: shards
        )
        let day = "2026-12-06"
        let budget = Int64(1_000_000_000_000)
        let tally = Tallies()
        let calls = Int(rate * seconds)
        let interval = Duration.seconds(1 / rate)
        let start = ContinuousClock.now
        await withTaskGroup(of: Void.self) { group in
            for index in 0..<calls {
                try? await Task.sleep(until: start + interval * index, clock: .continuous)
                group.addTask {
                    await Deadline.$current.withValue(.after(.seconds(10))) {
                        await call(store, day: day, budget: budget, tally: tally)
                    }
                }
            }
        }
        let elapsed = start.duration(to: .now)
        var rows: (calls: Int64, cost: Int64) = (0, 0)
        for shard in 0..<shards {
            let key = DynamoCeilingStore.key(day, shard: shard)
            let row = try? await client.getItem(table, key: key, deadline: .after(.seconds(5)))
            rows.calls += row?["calls"]?.intValue ?? 0
            rows.cost += row?["cost"]?.intValue ?? 0
        }
        let result = tally.withLock { $0 }
        let sorted = result.storeMicros.sorted()
        func percentile(_ p: Double) -> Int64 {
            sorted.isEmpty ? 0 : sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))]
        }
        let (wholeSeconds, attoseconds) = elapsed.components
        let elapsedSeconds = Double(wholeSeconds) + Double(attoseconds) / 1e18
        return .object([
            "shards": .int(Int64(shards)), "offered": .int(Int64(calls)), "offeredRate": .double(rate),
            "seconds": .double(elapsedSeconds), "admitted": .int(Int64(result.admitted)),
            "refused": .int(Int64(result.refused)),
            "reserveErrors": .object(result.reserveErrors.mapValues { .int(Int64($0)) }),
            "settleErrors": .object(result.settleErrors.mapValues { .int(Int64($0)) }),
            "rowCalls": .int(rows.calls), "rowCost": .int(rows.cost),
            "expectedCost": .int(Int64(result.admitted) * cost),
            "achievedRate": .double(Double(result.admitted) / max(elapsedSeconds, 0.001)),
            "storeMsP50": .double(Double(percentile(0.5)) / 1000),
            "storeMsP99": .double(Double(percentile(0.99)) / 1000),
        ])
    }

    /// One call: reserve, the provider's time, settle; `storeMicros` counts the two writes' time only.
    func call(_ store: DynamoCeilingStore, day: String, budget: Int64, tally: Tallies) async {
        let began = ContinuousClock.now
        let attempt: CeilingAttempt
        do {
            attempt = try await store.reserve(day: day, limit: 0, worstCaseMicros: worst, budgetMicros: budget)
        } catch {
            let slug = (error as? StoreError)?.reason ?? "other"
            tally.withLock { $0.reserveErrors[slug, default: 0] += 1 }
            return
        }
        guard case .reserved(let reservation) = attempt else {
            tally.withLock { $0.refused += 1 }
            return
        }
        var storeTime = began.duration(to: .now)
        try? await Task.sleep(for: .milliseconds(providerMs))
        let settling = ContinuousClock.now
        do {
            try await store.giveBack(reservation, calls: 0, micros: worst - cost)
        } catch {
            let slug = (error as? StoreError)?.reason ?? "other"
            tally.withLock { $0.settleErrors[slug, default: 0] += 1 }
        }
        storeTime += settling.duration(to: .now)
        let (wholeSeconds, attoseconds) = storeTime.components
        let micros = wholeSeconds * 1_000_000 + attoseconds / 1_000_000_000_000
        tally.withLock {
            $0.admitted += 1
            $0.storeMicros.append(micros)
        }
    }
}
