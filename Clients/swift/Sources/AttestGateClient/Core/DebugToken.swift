#if DEBUG
#if canImport(FoundationEssentials)
internal import FoundationEssentials
#else
internal import Foundation
#endif

/// Debug tokens, client side: debug builds only. Everything in this file is compiled under `#if DEBUG`, so a
/// release build has no debug-token code path, no header name and no variable name in its binary
/// (`Clients/swift/check.sh` builds the library both ways and checks the strings).
///
/// A debug token (`agdt_` and the base64url of 32 random bytes, made by the operator with `attestgate
/// debug-token create`) is layer-1 proof `debug` on servers that run with `DEBUG_TOKENS=on`: a call sends
/// `X-Device-ID` and `X-Debug-Token`, and no App Attest header and no challenge. It is for simulators, CI
/// and UI tests, where App Attest cannot work.
public enum DebugToken {
    /// The request header that carries the token.
    static let header = "X-Debug-Token"
    /// The environment variable read by `fromProcess()`.
    public static let environmentVariable = "ATTESTGATE_DEBUG_TOKEN"
    /// The launch argument read by `fromProcess()`, followed by the token: `-AttestGateDebugToken agdt_…`.
    public static let launchArgument = "-AttestGateDebugToken"

    /// The token this process was started with: the launch argument, else the environment variable; nil
    /// when neither holds a well-formed token.
    public static func fromProcess() -> String? {
        from(environment: ProcessInfo.processInfo.environment, arguments: ProcessInfo.processInfo.arguments)
    }

    /// The token in `arguments` (after `launchArgument`), else in `environment`; nil when neither holds a
    /// well-formed token.
    public static func from(environment: [String: String], arguments: [String]) -> String? {
        if let index = arguments.firstIndex(of: launchArgument), index + 1 < arguments.count,
            isWellFormed(arguments[index + 1])
        {
            return arguments[index + 1]
        }
        if let value = environment[environmentVariable], isWellFormed(value) { return value }
        return nil
    }

    /// `agdt_` and 43 characters of the base64url alphabet (32 bytes, no padding).
    public static func isWellFormed(_ token: String) -> Bool {
        guard token.hasPrefix("agdt_") else { return false }
        let rest = token.utf8.dropFirst(5)
        return rest.count == 43
            && rest.allSatisfy { byte in
                (byte >= 0x41 && byte <= 0x5a) || (byte >= 0x61 && byte <= 0x7a) || (byte >= 0x30 && byte <= 0x39)
                    || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_")
            }
    }
}
#endif
