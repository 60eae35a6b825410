import AttestCore
import FoundationEssentials
import Glibc
import HTTPClient
import Synchronization
import TestSupport

@testable import PlayIntegrity

enum Fixture {
    /// The fixtures' folder (the fake Google serves them by name).
    static let directory = String(TestSupport.Fixture.path("-").dropLast())

    static func bytes(_ name: String) throws -> [UInt8] { try TestSupport.Fixture.bytes(name) }

    static func json(_ name: String) throws -> JSONValue { try TestSupport.Fixture.json(name) }

    /// The standard fixtures' values.
    static let packageName = "com.package.name"
    static let requestHash = "aGVsbG8gd29scmQgdGhlcmU"
    static let digest = "6a6a1474b5cbbb2b1aa57e0bc3"
    static let timestampMillis: Int64 = 1_675_655_009_345
    /// Ten seconds after the fixtures' `timestampMillis`.
    static let now = Date(timeIntervalSince1970: Double(timestampMillis) / 1000 + 10)

    static let configuration = PlayIntegrityConfiguration(packageName: packageName, certificateDigests: [digest])
}

extension JSONValue {
    /// A copy with the value at `path` replaced (nil removes it).
    func setting(_ path: [String], to value: JSONValue?) -> JSONValue {
        guard let first = path.first, case .object(var members) = self else { return self }
        if path.count == 1 {
            members[first] = value
        } else {
            members[first] = (members[first] ?? .object([:])).setting(Array(path.dropFirst()), to: value)
        }
        return .object(members)
    }
}

/// A secret source that counts reads and can be switched between values and failures.
final class CountingSecretSource: SecretSource {
    private let state: Mutex<(value: [UInt8]?, reads: Int)>

    init(_ value: [UInt8]?) { state = Mutex((value, 0)) }

    func readSecret() async throws(SecretSourceError) -> [UInt8] {
        let value = state.withLock { state -> [UInt8]? in
            state.reads += 1
            return state.value
        }
        guard let value else { throw SecretSourceError(.notFound) }
        return value
    }

    var reads: Int { state.withLock { $0.reads } }
    func replace(with value: [UInt8]?) { state.withLock { $0.value = value } }
}

/// A quota guard that admits everything (and counts calls).
final class CountingQuotaGuard: DecodeQuotaGuard {
    private let calls = Mutex(0)
    let answer: DecodeQuotaDecision
    init(_ answer: DecodeQuotaDecision = .admitted) { self.answer = answer }
    func admitDecode(now: Date) async -> DecodeQuotaDecision {
        calls.withLock { $0 += 1 }
        return answer
    }
    var count: Int { calls.withLock { $0 } }
}

/// An access-token source with a fixed answer.
final class StubAccessTokens: AccessTokenSource {
    private let state = Mutex<(calls: Int, discards: Int)>((0, 0))
    let failure: GoogleAuthError?

    init(failure: GoogleAuthError? = nil) { self.failure = failure }

    func accessToken(now: Date) async throws(GoogleAuthError) -> String {
        state.withLock { $0.calls += 1 }
        if let failure { throw failure }
        return "test-access-token"
    }

    func discardAccessToken() async { state.withLock { $0.discards += 1 } }

    var calls: Int { state.withLock { $0.calls } }
    var discards: Int { state.withLock { $0.discards } }
}
