internal import AttestCore
internal import AttestGateClient
internal import Crypto
internal import DynamoDB
internal import FoundationEssentials
internal import HTTPClient
internal import SimulatedDevice
internal import WireContract

/// The scripted session of `make run`: every layer shown once, each step one line (who, what, expected, got).
///
/// The stack it expects (`local-harness/run.py` sets it up): `POST /v1/generate` in **enforce** mode with
/// a small daily allowance, `POST /v1/tutor/{deckId}/{cardId}` in **monitor** mode, request binding on
/// both, `AI_DAILY_CALL_CEILING` small enough to reach, `PAID_CLAIM=plan=paid`.
final class Session {
    let options: SessionCommand.Options
    let api: GateAPI
    let stack: Stack
    let counters: Counters
    let report = Report()
    let clock = SystemClock()

    let iphone: AppleClient
    var pixel: AndroidClient
    var tampered: AndroidClient
    let minted: [String]
    /// One physical iPhone on which the app is installed six times (six device IDs, six keys).
    let installs: [AppleClient]
    /// Another iPhone, whose App Attest keys Apple's fraud-risk metric counts as many (a device farm's phone).
    let flagged: AppleClient
    let paidUser = #"{"sub":"user-paid-0001","plan":"paid"}"#
    let freeUser = #"{"sub":"user-free-0001"}"#

    static let generatePath = "/v1/generate"
    static let tutorPath = "/v1/tutor/deck-biology/card-7"
    static let generateBody = Array(
        #"{"variables":{"text":"Mitochondria make ATP. ATP is the cell's energy currency. Ribosomes build proteins.","cards":3}}"#
            .utf8
    )
    static let tutorBody = Array(#"{"variables":{"question":"Why is ATP called the energy currency?"}}"#.utf8)

    init(options: SessionCommand.Options, environment: [String: String]) throws {
        self.options = options
        api = GateAPI(baseURL: options.front)
        stack = Stack(harnessControl: options.harness, upstreamControl: options.upstream)
        counters = try Counters(environment: environment)
        let device = SimulatedDevice(
            teamId: options.teamID,
            bundleId: options.bundleID,
            environment: .development,
            authority: try SimulatedAppleCA(loadingFrom: options.caDirectory)
        )
        iphone = AppleClient(deviceID: Self.newDeviceID(), device: device, baseURL: options.front)
        let phone = SimulatedDevice(
            teamId: options.teamID,
            bundleId: options.bundleID,
            environment: .development,
            authority: try SimulatedAppleCA(loadingFrom: options.caDirectory)
        )
        let front = options.front
        installs = (0..<6).map { _ in AppleClient(deviceID: Session.newDeviceID(), device: phone, baseURL: front) }
        let farmPhone = SimulatedDevice(
            teamId: options.teamID,
            bundleId: options.bundleID,
            environment: .development,
            authority: try SimulatedAppleCA(loadingFrom: options.caDirectory)
        )
        flagged = AppleClient(deviceID: Session.newDeviceID(), device: farmPhone, baseURL: options.front)
        let google = FakeGoogle(
            baseURL: options.google,
            packageName: options.androidPackage,
            certificateDigest: options.certificateDigest
        )
        pixel = AndroidClient(deviceID: Self.newDeviceID(), api: api, google: google, integrity: .genuine)
        tampered = AndroidClient(deviceID: Self.newDeviceID(), api: api, google: google, integrity: .tampered)
        minted = (0..<6).map { _ in Self.newDeviceID() }
    }

    func play() async throws {
        try await genuineIPhone()
        try await scriptWithMintedIDs()
        try await onePhoneManyIDs()
        try await flaggedPhone()
        try await android()
        try await allowance()
        try await upstreamFailure()
        try await streamedTutor()
        try await ceiling()
    }

    /// The rows behind the session, read back from DynamoDB.
    func printCounters() async throws {
        print("\n== Counters read back from DynamoDB (\(counters.table.name), day \(Counters.today()))")
        let ceiling = try await counters.ceilingCalls()
        print("  AI_BUDGET#\(Counters.today()) / TOTAL           calls = \(ceiling) of \(options.budget)")
        let rows: [(String, String)] = [
            ("iPhone (genuine)", "DEVICE#\(iphone.deviceID)"), ("Pixel (genuine)", "DEVICE#\(pixel.deviceID)"),
            ("Pixel (tampered)", "DEVICE#\(tampered.deviceID)"), ("paying user", "USER#user-paid-0001"),
            ("signed-in free user", "USER#user-free-0001"),
        ]
        for (who, partition) in rows {
            let generation = try await counters.allowanceUsed(partition: partition, feature: "generation")
            let tutor = try await counters.allowanceUsed(partition: partition, feature: "tutor")
            print("  \(report.pad(who, 20)) \(report.pad(partition, 48)) generation \(generation), tutor \(tutor)")
        }
        var mintedTutor = 0
        var mintedGeneration = 0
        for id in minted {
            mintedTutor += try await counters.allowanceUsed(partition: "DEVICE#\(id)", feature: "tutor")
            mintedGeneration += try await counters.allowanceUsed(partition: "DEVICE#\(id)", feature: "generation")
        }
        print(
            "  \(report.pad("6 minted IDs", 20)) \(report.pad("DEVICE#<each>", 48)) generation \(mintedGeneration), tutor \(mintedTutor) (all six)"
        )
        var installGeneration = 0
        for install in installs {
            installGeneration += try await counters.allowanceUsed(
                partition: "DEVICE#\(install.deviceID)",
                feature: "generation"
            )
        }
        print(
            "  \(report.pad("one iPhone, 6 IDs", 20)) \(report.pad("DEVICE#<each>", 48)) generation \(installGeneration) (all six)"
        )
    }

    // MARK: helpers

    /// A random (version 4) UUID, as an app makes once per install.
    static func newDeviceID() -> String {
        var bytes = SecureRandom().bytes(16)
        bytes[6] = (bytes[6] & 0x0f) | 0x40
        bytes[8] = (bytes[8] & 0x3f) | 0x80
        let hex = Bytes.hex(bytes)
        let parts = [0..<8, 8..<12, 12..<16, 16..<20, 20..<32].map { range in
            String(hex.dropFirst(range.lowerBound).prefix(range.count))
        }
        return parts.joined(separator: "-")
    }

    func cards(_ response: HTTPResponse) -> Int {
        (try? JSONValue.parse(response.body))?["cards"]?.arrayValue?.count ?? 0
    }

    func cards(_ outcome: Outcome) -> Int {
        guard case .served(let answer) = outcome else { return 0 }
        return (try? JSONValue.parse(answer.body))?["cards"]?.arrayValue?.count ?? 0
    }

    /// Whether the library's outcome is the provider's 200 answer with cards.
    func servedCards(_ outcome: Outcome) -> Bool {
        if case .served(let answer) = outcome { return answer.status == 200 && cards(outcome) > 0 }
        return false
    }

    /// A typed outcome of the library as the answer it stands for: `200, 3 cards, 2 left today`,
    /// `429 quota_exhausted`, …
    func describe(_ outcome: Outcome) -> String {
        switch outcome {
        case .served(let answer):
            let left = answer.quotaRemaining.map { ", \($0) left today" } ?? ""
            let count = cards(outcome)
            return count > 0 ? "\(answer.status), \(count) cards\(left)" : "\(answer.status)\(left)"
        case .streamed: return "200 text/event-stream"
        case .quotaExhausted: return "429 quota_exhausted"
        case .dailyBudgetExhausted: return "503 daily_budget_exhausted"
        case .attestationRequired: return "403 attestation_required"
        case .attestationUnavailable(let missing): return "403 attestation_required (no proof: \(missing))"
        case .deviceBlocked: return "403 device_blocked"
        case .upstreamUnavailable(let status, _): return "\(status) upstream_unavailable"
        case .serviceUnavailable(let status, _): return "\(status) unavailable"
        case .tooManyChallenges: return "429 too_many_challenges"
        case .invalidRequest(let status, let code): return "\(status) \(code ?? "")"
        case .networkFailure(let error): return "no answer (\(error.reason))"
        }
    }

    /// A key registration as the answer it stands for: `200 bound`.
    func describe(_ registration: Registration) -> String {
        switch registration {
        case .registered(let binding): "200 \(binding)"
        case .alreadyRegistered: "already registered"
        case .unavailable(let reason): "no App Attest (\(reason))"
        case .failed(let failure): "failed (\(failure))"
        }
    }

    /// `200, 3 cards, 2 left today` or `403 attestation_required`.
    func describe(_ response: HTTPResponse) -> String {
        if response.status == 200 {
            let left = response.header(WireHeader.quotaRemaining.name).map { ", \($0) left today" } ?? ""
            let count = cards(response)
            return count > 0 ? "200, \(count) cards\(left)" : "200\(left)"
        }
        return "\(response.status) \(response.errorCode ?? response.text)"
    }
}
