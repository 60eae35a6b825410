// `make bench`: App Attest verification throughput on one core (one thread), next to OpenSSL's own
// ECDSA verify rates on the same machine.
//
// Attestations are Apple's steps 1-9 (`verifyAttestation`); registrations add the receipt
// (`verifyRegistration`). Each figure is measured in windows that alternate with windows of a plain
// OpenSSL ECDSA verification on the same curve and thread (`ReferenceVerify`), so each ratio compares
// moments of equal machine load; `openssl speed` figures (passed in by the Makefile) are printed beside.
//
// usage: AppAttestBench [--seconds S] [--windows N] [--openssl-p256 VERIFY_PER_S] [--openssl-p384 VERIFY_PER_S]
//                       [--breakdown]
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
/// CPU seconds per figure (split over the windows), and as much again for its reference.
let seconds = options["--seconds"] ?? 3
let windows = max(1, Int(options["--windows"] ?? 7))

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
let p384 = try ReferenceVerify(.p384)
let p256 = try ReferenceVerify(.p256)

// Warm up: the first attestation verifies the intermediate and the receipt signer's chain (then cached).
let attestedKeys = try attestations.map { sample in
    try verifier.verifyAttestation(
        keyId: sample.keyId,
        attestation: sample.bytes,
        clientDataHash: clientDataHash,
        now: now
    )
}

// Apple's steps 1-9 (the target: one P-384 verification once the intermediate is cached).
let attestationFigure = try Paired(windows: windows, seconds: seconds, reference: p384) { i in
    let sample = attestations[i % attestations.count]
    _ = try verifier.verifyAttestation(
        keyId: sample.keyId,
        attestation: sample.bytes,
        clientDataHash: clientDataHash,
        now: now
    )
}
// The ATTEST receipt of an attested key: PKCS#7 parse, one P-256 signature, fields; signer chain cached.
let receiptFigure = try Paired(windows: windows, seconds: seconds, reference: p256) { i in
    _ = try verifier.verifyReceipt(of: attestedKeys[i % attestedKeys.count], clientDataHash: clientDataHash, now: now)
}
// What key registration runs: both.
let registrationFigure = try Paired(windows: windows, seconds: seconds, reference: p384) { i in
    let sample = attestations[i % attestations.count]
    _ = try verifier.verifyRegistration(
        keyId: sample.keyId,
        attestation: sample.bytes,
        clientDataHash: clientDataHash,
        now: now
    )
}
let assertionFigure = try Paired(windows: windows, seconds: seconds, reference: p256) { i in
    _ = try verifier.verifyAssertion(
        publicKey: publicKey,
        assertion: assertions[i % assertions.count],
        clientDataHash: clientDataHash,
        storedCounter: 0
    )
}
let storedKeyFigure = try Paired(windows: windows, seconds: seconds, reference: p256) { i in
    _ = try verifier.verifyAssertion(
        publicKeyBytes: publicKey.derRepresentation,
        assertion: assertions[i % assertions.count],
        clientDataHash: clientDataHash,
        storedCounter: 0
    )
}

/// `name: R/s  reference=R/s ratio=Q low=Q high=Q [openssl=R/s opensslRatio=Q]` (read by bench.py).
func line(_ name: String, _ figure: Paired, opensslSpeed: Double?) -> String {
    func two(_ value: Double) -> String { String((value * 100).rounded() / 100) }
    var text = "\(name): \(Int(figure.rate.rounded()))/s  reference=\(Int(figure.reference.rounded()))/s"
    text += " ratio=\(two(figure.ratio)) low=\(two(figure.lowest)) high=\(two(figure.highest))"
    if let opensslSpeed, opensslSpeed > 0 {
        text += " openssl=\(Int(opensslSpeed.rounded()))/s opensslRatio=\(two(figure.rate / opensslSpeed))"
    }
    return text
}
let windowMilliseconds = Int((seconds / Double(windows) * 1000).rounded())
print("(\(windows) windows of \(windowMilliseconds) ms of CPU each, alternating with the reference)")
print(line("attestations", attestationFigure, opensslSpeed: options["--openssl-p384"]))
print(line("receipts", receiptFigure, opensslSpeed: options["--openssl-p256"]))
print(line("registrations", registrationFigure, opensslSpeed: options["--openssl-p384"]))
print(line("assertions", assertionFigure, opensslSpeed: options["--openssl-p256"]))
print(line("assertions-stored-key", storedKeyFigure, opensslSpeed: options["--openssl-p256"]))

if CommandLine.arguments.contains("--breakdown") {
    print("per stage (one attestation):")
    let sample = attestations[0]
    try Breakdown.run(
        attestation: sample.bytes,
        whole: {
            _ = try verifier.verifyAttestation(
                keyId: sample.keyId,
                attestation: sample.bytes,
                clientDataHash: clientDataHash,
                now: now
            )
        },
        root: authority.root,
        now: now,
        rate: { body in try perCPUSecond(seconds: seconds, body) }
    )
}
