/// Which App Attest environment a key was created in, told apart by the aaguid (Apple step 8).
package enum AppAttestEnvironment: String, Sendable, Hashable {
    case production
    case development

    /// The 16-byte aaguid Apple writes into authenticator data for this environment.
    /// Production is `appattest` followed by seven zero bytes; development is `appattestdevelop`
    /// (what every real development capture carries, although one Apple page says `appattestsandbox`).
    package var aaguid: [UInt8] {
        switch self {
        case .production: Array("appattest".utf8) + [UInt8](repeating: 0, count: 7)
        case .development: Array("appattestdevelop".utf8)
        }
    }
}
