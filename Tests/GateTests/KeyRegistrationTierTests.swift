import AppAttest
import AttestCore
import CivilTime
import Crypto
import FoundationEssentials
import SimulatedDevice
import Synchronization
import TestSupport
import Testing
import WireContract

@testable import Gate

/// `POST /v1/attest/keys` with device marks: the body's `deviceCheckToken`, the tier step after the bind
/// and what it logs (challenges and keys on moto, marks and tiers scripted).
@Suite(.enabled(if: MotoTable.endpoint != nil, "needs DYNAMODB_ENDPOINT (make test starts moto)"))
struct KeyRegistrationTierTests {
    let now = Date()

    struct Rig {
        let registration: KeyRegistration
        let challenges: DynamoChallengeStore
        let keys: DynamoAppAttestKeyStore
        let phone: SimulatedDevice
        let sink = CapturingLogSink()

        var logger: Logger { Logger(sink: sink) }

        /// The registration line ("app attest key registered" / "rebound").
        var registeredLine: JSONValue? {
            sink.objects.last { ($0["message"]?.stringValue ?? "").hasPrefix("app attest key") }
        }
        var decisionLines: [JSONValue] { sink.objects.filter { $0["logger"] == .string(DecisionRecord.loggerName) } }

        /// A body attesting `key` for a fresh challenge of `deviceID`, with `extra` fields.
        func body(
            _ key: SimulatedAppAttestKey,
            deviceID: String,
            now: Date,
            extra: [String: JSONValue] = [:]
        )
            async throws -> [UInt8]
        {
            let challenge = try await challenges.issue(deviceID: deviceID, replacingSpent: false, now: now)
            let attestation = try phone.attest(key, clientDataHash: Digest.sha256(challenge.bytes), now: now)
            var fields: [String: JSONValue] = [
                "keyId": .string(Bytes.base64(key.keyId)), "attestation": .string(Bytes.base64(attestation)),
                "challenge": .string(Bytes.base64(challenge.bytes)),
            ]
            for (name, value) in extra { fields[name] = value }
            return JSONValue.object(fields).serializedBytes
        }

        func register(
            _ key: SimulatedAppAttestKey,
            deviceID: String,
            now: Date,
            extra: [String: JSONValue] = [:]
        ) async throws -> GateResponse {
            let body = try await body(key, deviceID: deviceID, now: now, extra: extra)
            return await registration.handle(deviceHeader: deviceID, body: body, now: now, logger: logger)
        }
    }

    func rig(tiering: RegistrationTiering?) async throws -> Rig {
        let table = try await MotoTable.make()
        let apple = try SyntheticApple(now: now)
        let (phone, verifier) = (apple.phone, apple.verifier)
        let challenges = DynamoChallengeStore(table: table)
        let keys = DynamoAppAttestKeyStore(table: table)
        return Rig(
            registration: KeyRegistration(
                challenges: challenges,
                keys: keys,
                verifier: verifier,
                tiering: tiering,
                environment: "development"
            ),
            challenges: challenges,
            keys: keys,
            phone: phone
        )
    }

    static let token = JSONValue.string(Bytes.base64(Array(repeating: 9, count: 96)))

    @Test(arguments: [
        JSONValue.string("not base64!"), .string(""), .int(3), .null, .array([]),
        .string(String(repeating: "A", count: 8196)),
    ])
    func aMalformedDeviceCheckTokenIsInvalidRequest(_ token: JSONValue) async throws {
        let marks = ScriptedMarks(MarkReading(.clear, .markClear))
        let tiers = InMemoryDeviceTierStore()
        let rig = try await rig(tiering: RegistrationTiering(marks: marks, tiers: tiers, calendar: .utc))
        let deviceID = UUID().uuidString.lowercased()
        let response = try await rig.register(
            try SimulatedAppAttestKey(),
            deviceID: deviceID,
            now: now,
            extra: ["deviceCheckToken": token]
        )
        #expect(response.status == 400 && response.body == Array(#"{"error":"invalid_request"}"#.utf8))
        #expect(marks.reads.load(ordering: .relaxed) == 0)
        #expect(try await rig.keys.lookup(deviceID: deviceID).key == nil)
    }

    @Test func marksOffAcceptTheTokenAndRunNoTierStep() async throws {
        let rig = try await rig(tiering: nil)
        let response = try await rig.register(
            try SimulatedAppAttestKey(),
            deviceID: UUID().uuidString.lowercased(),
            now: now,
            extra: ["deviceCheckToken": Self.token]
        )
        #expect(response.status == 200 && response.body == Array(#"{"binding":"bound"}"#.utf8))
        let line = try #require(rig.registeredLine)
        #expect(line["tier"] == nil && line["tierReason"] == nil)
    }

    @Test func theTierIsLoggedAndStoredButNeverAnswered() async throws {
        let marks = ScriptedMarks(MarkReading(.clear, .markClear))
        let tiers = InMemoryDeviceTierStore()
        let rig = try await rig(tiering: RegistrationTiering(marks: marks, tiers: tiers, calendar: .utc))
        let deviceID = UUID().uuidString.lowercased()
        var key = try SimulatedAppAttestKey()
        let first = try await rig.register(key, deviceID: deviceID, now: now, extra: ["deviceCheckToken": Self.token])
        #expect(first.status == 200 && first.body == Array(#"{"binding":"bound"}"#.utf8))
        let line = try #require(rig.registeredLine)
        #expect(line["tier"] == .string("first") && line["tierReason"] == .string("mark.clear"))
        #expect(try await tiers.storedTier(deviceID: deviceID) == .first)
        #expect(rig.decisionLines.isEmpty)

        // A reinstall: the device ID keeps its tier, Apple is not asked again.
        key = try SimulatedAppAttestKey()
        marks.answer.withLock { $0 = MarkReading(.set, .markSet) }
        let again = try await rig.register(key, deviceID: deviceID, now: now, extra: ["deviceCheckToken": Self.token])
        #expect(again.status == 200 && again.body == Array(#"{"binding":"rebound"}"#.utf8))
        #expect(rig.registeredLine?["tier"] == .string("first"))
        #expect(rig.registeredLine?["tierReason"] == .string("tier.kept"))
        #expect(marks.reads.load(ordering: .relaxed) == 1)
    }

    @Test func anUnavailableMarkIsUnknownAndCounted() async throws {
        let marks = ScriptedMarks(MarkReading(.unavailable, .markUnavailable, detail: "devicecheck.bits_rate_limited"))
        let tiers = InMemoryDeviceTierStore()
        let rig = try await rig(tiering: RegistrationTiering(marks: marks, tiers: tiers, calendar: .utc))
        let deviceID = UUID().uuidString.lowercased()
        let response = try await rig.register(
            try SimulatedAppAttestKey(),
            deviceID: deviceID,
            now: now,
            extra: ["deviceCheckToken": Self.token]
        )
        #expect(response.status == 200)
        #expect(rig.registeredLine?["tier"] == .string("unknown"))
        #expect(rig.registeredLine?["markDetail"] == .string("devicecheck.bits_rate_limited"))
        let record = try #require(rig.decisionLines.first)
        #expect(record["unavailable"] == .int(1))
        #expect(record["route"] == .string("attest_keys") && record["environment"] == .string("development"))
        #expect(record["tier"] == .string("unknown"))
    }

    @Test func noTokenIsRepeat() async throws {
        let tiers = InMemoryDeviceTierStore()
        let rig = try await rig(
            tiering: RegistrationTiering(
                marks: ScriptedMarks(MarkReading(.clear, .markClear)),
                tiers: tiers,
                calendar: .utc
            )
        )
        let deviceID = UUID().uuidString.lowercased()
        #expect(try await rig.register(try SimulatedAppAttestKey(), deviceID: deviceID, now: now).status == 200)
        #expect(rig.registeredLine?["tierReason"] == .string("mark.no_token"))
        #expect(try await tiers.storedTier(deviceID: deviceID) == .repeat)
    }

    @Test func aTierStoreFailureIs503AndTheKeyStaysBound() async throws {
        let rig = try await rig(
            tiering: RegistrationTiering(
                marks: ScriptedMarks(MarkReading(.clear, .markClear)),
                tiers: FailingTierStore(failRead: false),
                calendar: .utc
            )
        )
        let deviceID = UUID().uuidString.lowercased()
        let key = try SimulatedAppAttestKey()
        let response = try await rig.register(
            key,
            deviceID: deviceID,
            now: now,
            extra: ["deviceCheckToken": Self.token]
        )
        #expect(response.status == 503 && response.body == Array(#"{"error":"unavailable"}"#.utf8))
        #expect(try await rig.keys.lookup(deviceID: deviceID).key?.keyId == key.keyId)
    }
}
