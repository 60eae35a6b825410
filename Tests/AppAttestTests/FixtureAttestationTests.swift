import AttestCore
import Crypto
import FoundationEssentials
import Testing

@testable import AppAttest

/// Real Apple evidence: every capture is accepted at its own time, environment and client-data-hash
/// rule, and rejected a day after its leaf expired and under the other environment.
@Suite struct FixtureAttestationTests {
    static let fixtures = FixtureLoader.attestationFixtures

    func verifier(_ fixture: AttestationFixture, production: Bool? = nil) -> AppAttestVerifier {
        AppAttestVerifier(
            teamId: fixture.teamId,
            bundleIds: ["some.other.app", fixture.bundleId],
            environment: (production ?? fixture.production) ? .production : .development
        )
    }

    @Test(arguments: fixtures) func acceptedAtItsVerificationTime(_ name: String) throws {
        let fixture = AttestationFixture(name)
        let key = try verifier(fixture).verifyAttestation(
            keyId: fixture.keyId,
            attestation: fixture.attestation,
            clientDataHash: fixture.clientDataHash,
            now: fixture.verifyAt
        )
        #expect(key.keyId == fixture.keyId)
        #expect(key.publicKey.x962Representation == fixture.publicKeyX962)
        #expect(key.counter == 0)
        #expect(key.appId.bundleId == fixture.bundleId)
        #expect(key.receipt.kind == .attest)
        #expect(key.receipt.appId == "\(fixture.teamId).\(fixture.bundleId)")
        #expect(key.receipt.clientHash == fixture.clientDataHash)
    }

    @Test(arguments: fixtures) func rejectedADayAfterTheLeafExpired(_ name: String) {
        let fixture = AttestationFixture(name)
        #expect(throws: AppAttestError(.certExpired)) {
            try verifier(fixture).verifyAttestation(
                keyId: fixture.keyId,
                attestation: fixture.attestation,
                clientDataHash: fixture.clientDataHash,
                now: fixture.leafNotAfter.addingTimeInterval(86_400)
            )
        }
    }

    @Test(arguments: fixtures) func rejectedUnderTheOtherEnvironment(_ name: String) {
        let fixture = AttestationFixture(name)
        #expect(throws: AppAttestError(.aaguidMismatch)) {
            try verifier(fixture, production: !fixture.production).verifyAttestation(
                keyId: fixture.keyId,
                attestation: fixture.attestation,
                clientDataHash: fixture.clientDataHash,
                now: fixture.verifyAt
            )
        }
    }

    @Test(arguments: fixtures) func rejectedWithTheChallengeHashedTheOtherWay(_ name: String) {
        let fixture = AttestationFixture(name)
        #expect(throws: AppAttestError(.nonceMismatch)) {
            try verifier(fixture).verifyAttestation(
                keyId: fixture.keyId,
                attestation: fixture.attestation,
                clientDataHash: Digest.sha256(fixture.clientDataHash),
                now: fixture.verifyAt
            )
        }
    }

    @Test func newerFormatCarriesTheExtraEKUAndTrailingExtensions() throws {
        let fixture = AttestationFixture("apple-guide-2026.json")
        let object = try AttestationObject(fixture.attestation)
        #expect(object.authenticatorData.extensions?.isEmpty == false)
        #expect(object.authenticatorData.flags & 0x80 == 0)
        let leaf = try Certificate(derRepresentation: object.certificates[0])
        #expect(leaf.hasExtendedKeyUsage("1.2.840.113635.100.4.24"))
    }
}
