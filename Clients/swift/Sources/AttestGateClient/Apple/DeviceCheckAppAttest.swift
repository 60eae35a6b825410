#if canImport(DeviceCheck) && (os(iOS) || os(macOS))
@preconcurrency internal import DeviceCheck
internal import Foundation

/// `AppAttestService` over Apple's `DCAppAttestService.shared` (iOS 14, macOS 11). Not compiled on Linux, so
/// not tested here: the stack tests run the same client against a simulated Secure Enclave (README.md).
///
/// Each method wraps the framework's completion-handler form (available since iOS 14, unlike some async
/// forms' SDK annotations) and maps `DCError.Code` to `AppAttestError`.
public struct DeviceCheckAppAttest: AppAttestService {
    public init() {}

    /// `DCAppAttestService.shared.isSupported`: false in the Simulator, in most app extensions, and on
    /// devices without a Secure Enclave.
    public func isSupported() async -> Bool { DCAppAttestService.shared.isSupported }

    public func generateKey() async throws -> String {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<String, any Error>) in
            DCAppAttestService.shared.generateKey { keyID, error in
                if let keyID, error == nil {
                    continuation.resume(returning: keyID)
                } else {
                    continuation.resume(throwing: Self.appAttestError(error))
                }
            }
        }
    }

    public func attestKey(_ keyID: String, clientDataHash: [UInt8]) async throws -> [UInt8] {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<[UInt8], any Error>) in
            DCAppAttestService.shared.attestKey(keyID, clientDataHash: Data(clientDataHash)) { object, error in
                if let object, error == nil {
                    continuation.resume(returning: [UInt8](object))
                } else {
                    continuation.resume(throwing: Self.appAttestError(error))
                }
            }
        }
    }

    public func generateAssertion(_ keyID: String, clientDataHash: [UInt8]) async throws -> [UInt8] {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<[UInt8], any Error>) in
            DCAppAttestService.shared.generateAssertion(keyID, clientDataHash: Data(clientDataHash)) {
                assertion,
                error in
                if let assertion, error == nil {
                    continuation.resume(returning: [UInt8](assertion))
                } else {
                    continuation.resume(throwing: Self.appAttestError(error))
                }
            }
        }
    }

    /// The framework's error as an `AppAttestError` (Apple, `DCError.Code`).
    static func appAttestError(_ error: (any Error)?) -> AppAttestError {
        guard let error else { return AppAttestError(.unknownSystemFailure, detail: "no result and no error") }
        let detail = "\(error)"
        guard let code = (error as? DCError)?.code else { return AppAttestError(.unknownSystemFailure, detail: detail) }
        switch code {
        case .invalidKey: return AppAttestError(.invalidKey, detail: detail)
        case .serverUnavailable: return AppAttestError(.serverUnavailable, detail: detail)
        case .featureUnsupported: return AppAttestError(.featureUnsupported, detail: detail)
        case .invalidInput: return AppAttestError(.invalidInput, detail: detail)
        case .unknownSystemFailure: return AppAttestError(.unknownSystemFailure, detail: detail)
        @unknown default: return AppAttestError(.unknownSystemFailure, detail: detail)
        }
    }
}

/// `DeviceCheckTokenProvider` over `DCDevice.current` (iOS 11, macOS 10.15). Not compiled on Linux.
public struct DeviceCheckTokens: DeviceCheckTokenProvider {
    public init() {}

    public func isSupported() async -> Bool { DCDevice.current.isSupported }

    public func generateToken() async throws -> [UInt8] {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<[UInt8], any Error>) in
            DCDevice.current.generateToken { token, error in
                if let token, error == nil {
                    continuation.resume(returning: [UInt8](token))
                } else {
                    continuation.resume(throwing: DeviceCheckAppAttest.appAttestError(error))
                }
            }
        }
    }
}
#endif
