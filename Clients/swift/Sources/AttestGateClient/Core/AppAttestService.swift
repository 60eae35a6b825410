/// App Attest as the client needs it: Apple's `DCAppAttestService` on a device (`DeviceCheckAppAttest`,
/// Sources/AttestGateClient/Apple), a simulated Secure Enclave in tests and in the local demo.
///
/// Contract, as Apple documents `DCAppAttestService`:
/// - `isSupported()` false (the Simulator, some app extensions, devices without a Secure Enclave) means no
///   App Attest evidence at all: the library sends its calls without it and the server's policy decides.
/// - `generateKey()` makes a new key in the Secure Enclave and returns its id (base64 of 32 bytes). Keys do
///   not survive a reinstall, a restore or a move to another device.
/// - `attestKey(_:clientDataHash:)` asks Apple to attest the key, once: a second attestation of an attested
///   key fails with `invalidKey`. `serverUnavailable` means "try again later with the same key and the same
///   clientDataHash" (that keeps Apple's risk metric for the device).
/// - `generateAssertion(_:clientDataHash:)` signs with an attested key; `invalidKey` when the key is
///   unknown (a reinstall), not attested, or rejected by Apple.
///
/// Errors are `AppAttestError`; anything else thrown is treated as `AppAttestError.Reason.unknownSystemFailure`.
public protocol AppAttestService: Sendable {
    /// Whether App Attest can be used in this process.
    func isSupported() async -> Bool
    /// A new key's id.
    func generateKey() async throws -> String
    /// Apple's attestation object (CBOR) for `keyID`, over `clientDataHash`.
    func attestKey(_ keyID: String, clientDataHash: [UInt8]) async throws -> [UInt8]
    /// An assertion (CBOR) over `clientDataHash` with the attested key `keyID`.
    func generateAssertion(_ keyID: String, clientDataHash: [UInt8]) async throws -> [UInt8]
}

/// An App Attest failure, by Apple's `DCError.Code`. Equality uses only `reason`.
public struct AppAttestError: Error, Hashable, CustomStringConvertible {
    /// A bounded reason slug.
    public struct Reason: Hashable, Sendable, CustomStringConvertible {
        public let slug: String
        private init(_ slug: String) { self.slug = slug }
        public var description: String { slug }

        /// The key is unknown, already attested, or rejected by Apple: forget it and make a new one.
        public static let invalidKey = Reason("appattest.invalid_key")
        /// Apple's attestation service could not be reached: retry later with the same key and hash.
        public static let serverUnavailable = Reason("appattest.server_unavailable")
        /// App Attest is not available here.
        public static let featureUnsupported = Reason("appattest.feature_unsupported")
        /// An argument was refused (a hash that is not 32 bytes, a malformed key id).
        public static let invalidInput = Reason("appattest.invalid_input")
        /// Any other failure of the framework.
        public static let unknownSystemFailure = Reason("appattest.unknown_system_failure")
    }

    public let reason: Reason
    public let detail: String

    public init(_ reason: Reason, detail: String = "") {
        self.reason = reason
        self.detail = detail
    }

    /// `error` as an `AppAttestError` (an unknown error type is `unknownSystemFailure`).
    static func from(_ error: any Error) -> AppAttestError {
        error as? AppAttestError ?? AppAttestError(.unknownSystemFailure, detail: "\(error)")
    }

    public static func == (lhs: AppAttestError, rhs: AppAttestError) -> Bool { lhs.reason == rhs.reason }
    public func hash(into hasher: inout Hasher) { hasher.combine(reason) }
    public var description: String { detail.isEmpty ? reason.slug : "\(reason.slug): \(detail)" }
}

/// DeviceCheck tokens (`DCDevice.current.generateToken()` on a device): sent with the key registration (the
/// server's device marks, docs/appattest.md) and, where App Attest is unavailable, as the weak fallback
/// (`X-Device-Check-Token`, routes with `deviceCheckFallback`).
public protocol DeviceCheckTokenProvider: Sendable {
    /// Whether tokens can be made here.
    func isSupported() async -> Bool
    /// A fresh, ephemeral token (use it once).
    func generateToken() async throws -> [UInt8]
}

/// No App Attest on this platform (Linux, or an app that opts out): every call goes without that proof.
public struct NoAppAttest: AppAttestService {
    public init() {}
    public func isSupported() async -> Bool { false }
    public func generateKey() async throws -> String { throw AppAttestError(.featureUnsupported) }
    public func attestKey(_ keyID: String, clientDataHash: [UInt8]) async throws -> [UInt8] {
        throw AppAttestError(.featureUnsupported)
    }
    public func generateAssertion(_ keyID: String, clientDataHash: [UInt8]) async throws -> [UInt8] {
        throw AppAttestError(.featureUnsupported)
    }
}

/// No DeviceCheck tokens.
public struct NoDeviceCheck: DeviceCheckTokenProvider {
    public init() {}
    public func isSupported() async -> Bool { false }
    public func generateToken() async throws -> [UInt8] { throw AppAttestError(.featureUnsupported) }
}
