// ddb-harness: proves every conditional write of the product against a DynamoDB endpoint (moto locally),
// under resends (a resending transport beneath the client, and the loss proxy), with controls (the product's
// write with its token, or a give-back's marker, removed on the wire), broken expressions and races.
// docs/resend-harness.md explains every check. Run by `make ci-ddb-local`.
//
//   ddb-harness [--only slug,slug] [--break slug] [--no-races]
//   env: DYNAMODB_ENDPOINT (moto), LOSS_PROXY_ENDPOINT (the proxy in front of it), LOSS_PROXY_CONTROL
//
// --break slug runs that write's product side without its own-write token: its check must then FAIL
// (the harness's own test, `make ci-ddb-selftest`).
import AttestCore
import Crypto
import DynamoDB
import Glibc

func environment(_ name: String) -> String? {
    getenv(name).flatMap { String(cString: $0) }.flatMap { $0.isEmpty ? nil : $0 }
}

func fail(_ message: String) -> Never {
    print("ddb-harness: \(message)")
    exit(2)
}

// `ddb-harness ceiling-sim ...`: the scaled simulation of `make bench` (CeilingSimulation.swift).
if CommandLine.arguments.dropFirst().first == "ceiling-sim" {
    guard let endpoint = environment("DYNAMODB_ENDPOINT") else { fail("ceiling-sim: set DYNAMODB_ENDPOINT") }
    let simulation = CeilingSimulation(Array(CommandLine.arguments.dropFirst(2)))
    print(String(decoding: await simulation.run(endpoint: endpoint).serializedBytes, as: UTF8.self))
    exit(0)
}

var only: Set<String>?
var broken: Set<String> = []
var runRaces = true
var arguments = CommandLine.arguments.dropFirst().makeIterator()
while let argument = arguments.next() {
    switch argument {
    case "--only":
        guard let list = arguments.next() else { fail("--only needs a list of slugs") }
        only = Set(list.split(separator: ",").map(String.init))
    case "--break":
        guard let slug = arguments.next() else { fail("--break needs a slug") }
        broken.insert(slug)
    case "--no-races": runRaces = false
    default: fail("unknown argument \(argument); slugs: \(WriteCheck.all.map(\.slug).joined(separator: ", "))")
    }
}
let known = Set(WriteCheck.all.map(\.slug))
for slug in (only ?? []).union(broken) where !known.contains(slug) { fail("unknown check \(slug)") }

guard let moto = environment("DYNAMODB_ENDPOINT"), let proxyEndpoint = environment("LOSS_PROXY_ENDPOINT"),
    let control = environment("LOSS_PROXY_CONTROL")
else { fail("set DYNAMODB_ENDPOINT, LOSS_PROXY_ENDPOINT and LOSS_PROXY_CONTROL (make ci-ddb-local does)") }

let table = Table(name: "resend-harness-\(Bytes.hex(SecureRandom().bytes(6)))")
let harness = Harness(moto: moto, proxyEndpoint: proxyEndpoint, proxy: LossProxy(control: control), table: table)
do {
    _ = try await harness.client().createTable(table, deadline: .after(.seconds(10)))
} catch {
    fail("cannot create table \(table.name) on \(moto): \(error)")
}
print("ddb-harness: table \(table.name) on \(moto), loss proxy \(proxyEndpoint)")
if !broken.isEmpty { print("ddb-harness: --break: product writes WITHOUT their token for \(broken.sorted())") }

let runner = Runner(harness: harness, broken: broken)
var lines: [Line] = []
@MainActor func emit(_ line: Line) {
    print(line.text)
    lines.append(line)
}
for check in WriteCheck.all where only?.contains(check.slug) ?? true {
    var captured: Runner.Run?
    for method in ResendMethod.allCases {
        let (line, run) = await runner.check(check, method)
        if method == .hook { captured = run }
        emit(line)
    }
    emit(await runner.brokenExpressions(check, captured: captured))
}
if runRaces && only == nil {
    for line in await runner.races() { emit(line) }
}
let counted = lines.filter { !$0.note }
let passed = counted.filter(\.passed).count
print("\(passed) passed, \(counted.count - passed) failed")
exit(passed == counted.count && !counted.isEmpty ? 0 : 1)
