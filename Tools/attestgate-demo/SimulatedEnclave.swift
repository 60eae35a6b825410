internal import AttestCore
internal import AttestGateClient
internal import Crypto
internal import FoundationEssentials
internal import SimulatedDevice

/// `DCAppAttestService` in software, for the shipped client (`AttestGateClient.AppAttestService`): Apple's
/// documented rules on top of `SimulatedDevice` (which makes Apple's formats, signed by the synthetic CA the
/// local server trusts).
///
/// - `generateKey()` → a new `SimulatedAppAttestKey`, its id as base64 (`DCAppAttestService` returns it so);
/// - `attestKey` → `device.attest`, once per key: a second attestation of an attested key is `invalidKey`;
/// - `generateAssertion` → `device.assert` with an attested key, else `invalidKey`;
/// - a reinstall forgets every key (App Attest keys do not survive it; the Keychain does); `invalidate`
///   plays Apple rejecting a key; `failAttestations` plays Apple's attestation service being unreachable
///   (`serverUnavailable`).
actor SimulatedEnclave: AppAttestService {
    let device: SimulatedDevice
    let clock: any WallClock
    private var keys: [String: (key: SimulatedAppAttestKey, attested: Bool)] = [:]
    private var unreachable = 0
    private var supported = true

    init(device: SimulatedDevice, clock: any WallClock = SystemClock()) {
        self.device = device
        self.clock = clock
    }

    /// The app is deleted and installed again: its App Attest keys are gone.
    func reinstall() { keys.removeAll() }
    /// Apple no longer accepts `keyID` (the next use answers `invalidKey`).
    func invalidate(_ keyID: String) { keys[keyID] = nil }
    /// The next `count` attestations answer `serverUnavailable`.
    func failAttestations(_ count: Int) { unreachable = count }
    /// `isSupported` false: the Simulator, an app extension, an old device.
    func setSupported(_ value: Bool) { supported = value }
    /// The ids of the keys the enclave holds.
    var keyIDs: [String] { Array(keys.keys) }

    func isSupported() async -> Bool { supported }

    func generateKey() async throws -> String {
        guard supported else { throw AppAttestError(.featureUnsupported) }
        do {
            let key = try SimulatedAppAttestKey()
            let keyID = Bytes.base64(key.keyId)
            keys[keyID] = (key, false)
            return keyID
        } catch {
            throw AppAttestError(.unknownSystemFailure, detail: "\(error)")
        }
    }

    func attestKey(_ keyID: String, clientDataHash: [UInt8]) async throws -> [UInt8] {
        guard let entry = keys[keyID], !entry.attested else { throw AppAttestError(.invalidKey) }
        guard clientDataHash.count == 32 else { throw AppAttestError(.invalidInput) }
        if unreachable > 0 {
            unreachable -= 1
            throw AppAttestError(.serverUnavailable)
        }
        do {
            let attestation = try device.attest(entry.key, clientDataHash: clientDataHash, now: clock.now())
            keys[keyID] = (entry.key, true)
            return attestation
        } catch {
            throw AppAttestError(.unknownSystemFailure, detail: "\(error)")
        }
    }

    func generateAssertion(_ keyID: String, clientDataHash: [UInt8]) async throws -> [UInt8] {
        guard var entry = keys[keyID], entry.attested else { throw AppAttestError(.invalidKey) }
        do {
            let assertion = try device.assert(&entry.key, clientDataHash: clientDataHash)
            keys[keyID] = entry
            return assertion
        } catch {
            throw AppAttestError(.unknownSystemFailure, detail: "\(error)")
        }
    }
}

/// `DCDevice.current.generateToken()` of the simulated phone: tokens `local-harness/fake_apple.py` reads.
struct SimulatedDeviceCheck: DeviceCheckTokenProvider {
    let device: SimulatedDevice

    func isSupported() async -> Bool { true }

    func generateToken() async throws -> [UInt8] {
        guard let token = Bytes.fromBase64(device.deviceCheckToken()) else {
            throw AppAttestError(.unknownSystemFailure)
        }
        return token
    }
}
