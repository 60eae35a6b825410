#if canImport(FoundationEssentials)
internal import FoundationEssentials
#else
internal import Foundation
#endif

/// Runs the App Attest key's lifecycle (`KeyLifecycle`) with the I/O it needs: the enclave, the server's
/// challenge and key endpoints, the DeviceCheck token, and the `SecureStore` that keeps the record across
/// launches. One registration at a time (`lock`); every transition is stored before the next step.
actor KeyRegistrar {
    /// The store's name for the key record.
    static let recordName = "attestgate.appattest-key"
    /// The store's name for when the install's recent keys were made (Unix seconds, JSON).
    static let keysMadeName = "attestgate.appattest-keys-made"

    private let appAttest: any AppAttestService
    private let deviceCheck: any DeviceCheckTokenProvider
    private let store: any SecureStore
    private let api: ServerAPI
    private let onEvent: (@Sendable (ClientEvent) -> Void)?
    private let maxNewKeysPerDay: Int
    private let lock = AsyncLock()
    /// When this install's keys of the last day were made.
    private var keysMade: [Int64] = []
    private var lifecycle = KeyLifecycle()
    private var loaded = false
    private var supported: Bool?

    init(
        appAttest: any AppAttestService,
        deviceCheck: any DeviceCheckTokenProvider,
        store: any SecureStore,
        api: ServerAPI,
        maxNewKeysPerDay: Int,
        onEvent: (@Sendable (ClientEvent) -> Void)?
    ) {
        self.appAttest = appAttest
        self.deviceCheck = deviceCheck
        self.store = store
        self.api = api
        self.maxNewKeysPerDay = maxNewKeysPerDay
        self.onEvent = onEvent
    }

    /// Where the key stands after `ready`.
    enum Readiness: Sendable, Hashable {
        /// The key can sign; `binding` when this run registered it.
        case ready(keyID: String, binding: String?)
        /// No App Attest evidence for now (unsupported, or the framework failing; `serverUnavailable` after
        /// the retries).
        case unavailable(AppAttestError.Reason)
        /// The server refused, or could not be reached.
        case failed(RegistrationFailure)
    }

    /// A key that can sign, made, attested and registered as far as needed, within one call's bounds: at most
    /// one new key, and the call's retries.
    func ready(_ retrier: inout Retrier) async -> Readiness {
        let retrierCopy = retrier
        let (readiness, used) = await lock.run { await self.advance(retrierCopy) }
        retrier = used
        return readiness
    }

    /// Forgets `keyID` (Apple said `invalidKey`, or the server refused its proofs twice) unless the key has
    /// already been replaced by another call.
    func reject(_ keyID: String, reason: String) async {
        await lock.run { await self.forget(keyID, reason: reason) }
    }

    private func forget(_ keyID: String, reason: String) async {
        await load()
        guard lifecycle.record?.keyID == keyID else { return }
        lifecycle.keyRejected()
        onEvent?(.keyReset(reason: reason))
        await save()
    }

    /// Whether a new key may be made now (`Configuration.maxNewKeysPerDay`).
    func mayMakeKey() async -> Bool {
        await load()
        let now = api.now
        return keysMade.filter { $0 > now - 86_400 }.count < maxNewKeysPerDay
    }

    /// Whether App Attest works in this process (asked once).
    func isSupported() async -> Bool {
        if let supported { return supported }
        let answer = await appAttest.isSupported()
        supported = answer
        return answer
    }

    private func advance(_ start: Retrier) async -> (Readiness, Retrier) {
        var retrier = start
        guard await isSupported() else { return (.unavailable(.featureUnsupported), retrier) }
        await load()
        var newKeys = 1
        var binding: String?
        for _ in 0..<24 {  // each step moves the lifecycle or spends a bounded budget; this only caps a bug
            switch lifecycle.next(now: api.now) {
            case .use(let keyID):
                return (.ready(keyID: keyID, binding: binding), retrier)
            case .generateKey:
                guard newKeys > 0 else { return (.failed(.rejected), retrier) }
                let now = api.now
                keysMade.removeAll { $0 <= now - 86_400 }
                guard keysMade.count < maxNewKeysPerDay else { return (.failed(.keyLimit), retrier) }
                newKeys -= 1
                do {
                    lifecycle.keyGenerated(try await appAttest.generateKey())
                } catch {
                    return (.unavailable(AppAttestError.from(error).reason), retrier)
                }
                keysMade.append(now)
                onEvent?(.keyGenerated)
                await save()
            case .attest(let keyID, let retry):
                if let stop = await attest(keyID, retry: retry, &retrier) { return (stop, retrier) }
            case .register(let keyID, let attestation, let challenge):
                let token = await deviceCheckToken()
                let answer = await api.register(
                    keyID: keyID,
                    attestation: attestation,
                    challenge: challenge,
                    deviceCheckToken: token
                )
                switch answer {
                case .bound(let name):
                    lifecycle.registered()
                    binding = name
                    onEvent?(.keyRegistered(binding: name))
                case .rejected:
                    lifecycle.registrationRejected()
                    if lifecycle.record == nil { onEvent?(.keyReset(reason: "registration.attestation_rejected")) }
                case .retry(let status, let lost):
                    if lost { lifecycle.registrationAnswerLost() }
                    await save()
                    guard await retrier.again(status == 0 ? "registration.transport" : "registration.http.\(status)")
                    else { return (.failed(.unavailable(status: status)), retrier) }
                    continue
                case .failed(let failure):
                    return (.failed(failure), retrier)
                }
                await save()
            }
        }
        return (.unavailable(.unknownSystemFailure), retrier)
    }

    /// One `attestKey`: a fresh challenge, or the same challenge and hash after `serverUnavailable`.
    /// - Returns: nil to go on with the lifecycle, else where the run stops.
    private func attest(
        _ keyID: String,
        retry: KeyLifecycle.AttestRetry?,
        _ retrier: inout Retrier
    ) async
        -> Readiness?
    {
        let challenge: Challenge
        let hash: [UInt8]
        if let retry {
            (challenge, hash) = (retry.challenge, retry.clientDataHash)
        } else {
            switch await api.challenge(&retrier) {
            case .issued(let issued): challenge = issued
            case .failed(.tooManyChallenges): return .failed(.tooManyChallenges)
            case .failed(.invalidRequest(let status, let code)): return .failed(.invalid(status: status, code: code))
            case .failed(let other): return .failed(.unavailable(status: Self.status(of: other)))
            }
            guard let bytes = Bytes.fromBase64(challenge.value) else {
                return .failed(.invalid(status: 200, code: nil))
            }
            hash = ChallengeBinding.appAttestClientDataHash(challenge: bytes)
        }
        do {
            lifecycle.attested(try await appAttest.attestKey(keyID, clientDataHash: hash), challenge: challenge)
            await save()
            return nil
        } catch {
            let failure = AppAttestError.from(error)
            switch failure.reason {
            case .serverUnavailable:
                lifecycle.attestationDeferred(challenge: challenge, clientDataHash: hash)
                onEvent?(.attestationDeferred)
                await save()
                return await retrier.again(failure.reason.slug) ? nil : .unavailable(.serverUnavailable)
            case .invalidKey:
                lifecycle.keyRejected()
                onEvent?(.keyReset(reason: failure.reason.slug))
                await save()
                return nil
            default:
                return .unavailable(failure.reason)
            }
        }
    }

    /// A DeviceCheck token for the registration (device marks), when the device can make one.
    private func deviceCheckToken() async -> [UInt8]? {
        guard await deviceCheck.isSupported() else { return nil }
        return try? await deviceCheck.generateToken()
    }

    private static func status(of outcome: Outcome) -> Int {
        if case .serviceUnavailable(let status, _) = outcome { return status }
        return 0
    }

    // The record in the store.

    private func load() async {
        guard !loaded else { return }
        loaded = true
        if let bytes = try? await store.read(Self.keysMadeName),
            let made = try? JSONDecoder().decode([Int64].self, from: Data(bytes))
        {
            keysMade = made
        }
        guard let bytes = try? await store.read(Self.recordName),
            let record = try? JSONDecoder().decode(KeyRecord.self, from: Data(bytes))
        else { return }
        lifecycle = KeyLifecycle(record: record)
    }

    private func save() async {
        if let bytes = try? JSONEncoder().encode(keysMade) { try? await store.write(Self.keysMadeName, [UInt8](bytes)) }
        if let record = lifecycle.record, let bytes = try? JSONEncoder().encode(record) {
            try? await store.write(Self.recordName, [UInt8](bytes))
        } else {
            try? await store.delete(Self.recordName)
        }
    }
}
