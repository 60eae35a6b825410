// `make bench`: App Attest verification throughput on one core (one thread), next to OpenSSL's own
// ECDSA verify rates measured by `openssl speed` on the same machine (passed in by the Makefile).
//
// usage: AppAttestBench [--seconds S] [--openssl-p256 VERIFY_PER_S] [--openssl-p384 VERIFY_PER_S] [--breakdown]
internal import AppAttest
internal import Crypto
internal import FoundationEssentials
internal import Glibc
internal import SimulatedDevice

var options: [String: Double] = [:]
var index = 1
while index + 1 < CommandLine.arguments.count {
    if let value = Double(CommandLine.arguments[index + 1]) {
        options[CommandLine.arguments[index]] = value
        index += 2
    } else {
        index += 1
    }
}
let seconds = options["--seconds"] ?? 3

let now = Date()
let authority = try SimulatedAppleCA(now: now)
let device = SimulatedDevice(
    teamId: "ABCDE12345",
    bundleId: "com.example.gate",
    environment: .production,
    authority: authority
)
let verifier = AppAttestVerifier(
    teamId: "ABCDE12345",
    bundleIds: ["com.example.gate"],
    environment: .production,
    trust: .synthetic(root: authority.root)
)
let clientDataHash = Digest.sha256(Array("benchmark challenge".utf8))

// Distinct keys and attestations, as real traffic has; the intermediate is shared (cached after the first).
var attestations: [(keyId: [UInt8], bytes: [UInt8])] = []
for _ in 0..<64 {
    let key = try SimulatedAppAttestKey()
    attestations.append((key.keyId, try device.attest(key, clientDataHash: clientDataHash, now: now)))
}
var assertingKey = try SimulatedAppAttestKey()
var assertions: [[UInt8]] = []
for _ in 0..<256 { assertions.append(try device.assert(&assertingKey, clientDataHash: clientDataHash)) }
let publicKey = assertingKey.publicKey

/// Runs `body` repeatedly for `seconds` and returns operations per second.
func rate(_ body: (Int) throws -> Void) rethrows -> Double {
    let clock = ContinuousClock()
    let start = clock.now
    var count = 0
    while true {
        try body(count)
        count += 1
        if count % 16 == 0 {
            let elapsed = clock.now - start
            let secondsElapsed = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
            if secondsElapsed >= seconds { return Double(count) / secondsElapsed }
        }
    }
}

_ = try verifier.verifyAttestation(
    keyId: attestations[0].keyId,
    attestation: attestations[0].bytes,
    clientDataHash: clientDataHash,
    now: now
)
let attestationRate = try rate { i in
    let sample = attestations[i % attestations.count]
    _ = try verifier.verifyAttestation(
        keyId: sample.keyId,
        attestation: sample.bytes,
        clientDataHash: clientDataHash,
        now: now
    )
}
let assertionRate = try rate { i in
    _ = try verifier.verifyAssertion(
        publicKey: publicKey,
        assertion: assertions[i % assertions.count],
        clientDataHash: clientDataHash,
        storedCounter: 0
    )
}
let storedKeyRate = try rate { i in
    _ = try verifier.verifyAssertion(
        publicKeyBytes: publicKey.derRepresentation,
        assertion: assertions[i % assertions.count],
        clientDataHash: clientDataHash,
        storedCounter: 0
    )
}

func line(_ name: String, _ value: Double, against reference: Double?, _ referenceName: String) -> String {
    var text = "\(name): \(Int(value.rounded()))/s"
    if let reference, reference > 0 {
        let ratio = (value / reference * 100).rounded() / 100
        text += "  (openssl \(referenceName) verify \(Int(reference.rounded()))/s, ratio \(ratio))"
    }
    return text
}
print(line("attestations", attestationRate, against: options["--openssl-p384"], "ecdsap384"))
print(line("assertions  ", assertionRate, against: options["--openssl-p256"], "ecdsap256"))
print(line("assertions (stored DER key)", storedKeyRate, against: options["--openssl-p256"], "ecdsap256"))

if CommandLine.arguments.contains("--breakdown") {
    print("per stage (one attestation):")
    try Breakdown.run(attestation: attestations[0].bytes, root: authority.root, now: now, rate: rate)
}
