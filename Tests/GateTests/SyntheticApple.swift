import AppAttest
import FoundationEssentials
import SimulatedDevice

/// The App Attest side the moto-backed Gate tests share: one synthetic Apple CA, a phone it vouches for, and
/// a verifier that trusts it (team `TEAM123456`, bundle `com.example.cards`, development).
struct SyntheticApple {
    static let teamID = "TEAM123456"
    static let bundleID = "com.example.cards"

    let authority: SimulatedAppleCA
    let phone: SimulatedDevice
    let verifier: AppAttestVerifier

    init(now: Date) throws {
        authority = try SimulatedAppleCA(now: now)
        phone = SimulatedDevice(
            teamId: Self.teamID,
            bundleId: Self.bundleID,
            environment: .development,
            authority: authority
        )
        verifier = AppAttestVerifier(
            teamId: Self.teamID,
            bundleIds: [Self.bundleID],
            environment: .development,
            trust: .synthetic(root: authority.root)
        )
    }
}
