import AttestCore
import Crypto
import FoundationEssentials
import Testing

@testable import AppAttest

/// Real Apple evidence: every capture is accepted at its own time, environment and client-data-hash
/// rule, and rejected a day after its leaf expired and under the other environment.
@Suite struct FixtureAttestationTests {
    static let fixtures = FixtureLoader.attestationFixtures

    func verifier(
        _ fixture: AttestationFixture,
        production: Bool? = nil,
        cache: IntermediateCache = IntermediateCache()
    ) -> AppAttestVerifier {
        AppAttestVerifier(
            teamId: fixture.teamId,
            bundleIds: ["some.other.app", fixture.bundleId],
            environment: (production ?? fixture.production) ? .production : .development,
            cache: cache
        )
    }

    /// Accepted twice with one cache: first through OpenSSL's full chain build, then with Apple's
    /// intermediate cached (the leaf parsed without its key, one signature check), with equal results.
    @Test(arguments: fixtures) func acceptedAtItsVerificationTime(_ name: String) throws {
        let fixture = AttestationFixture(name)
        let verifier = verifier(fixture)
        var registrations: [VerifiedRegistration] = []
        for _ in 0..<2 {
            registrations.append(
                try verifier.verifyRegistration(
                    keyId: fixture.keyId,
                    attestation: fixture.attestation,
                    clientDataHash: fixture.clientDataHash,
                    now: fixture.verifyAt
                )
            )
        }
        #expect(registrations[0] == registrations[1])
        let key = registrations[1].key
        let receipt = try #require(registrations[1].receipt)
        #expect(key.keyId == fixture.keyId)
        #expect(key.publicKey.x962Representation == fixture.publicKeyX962)
        #expect(key.counter == 0)
        #expect(key.appId.bundleId == fixture.bundleId)
        #expect(receipt.kind == .attest)
        #expect(receipt.appId == "\(fixture.teamId).\(fixture.bundleId)")
        #expect(receipt.clientHash == fixture.clientDataHash)
    }

    /// On both paths: a fresh cache, and one that verified Apple's intermediate at `verify_at`.
    @Test(arguments: fixtures) func rejectedADayAfterTheLeafExpired(_ name: String) throws {
        let fixture = AttestationFixture(name)
        let warm = IntermediateCache()
        _ = try verifier(fixture, cache: warm).verifyAttestation(
            keyId: fixture.keyId,
            attestation: fixture.attestation,
            clientDataHash: fixture.clientDataHash,
            now: fixture.verifyAt
        )
        for cache in [IntermediateCache(), warm] {
            #expect(throws: AppAttestError(.certExpired)) {
                try verifier(fixture, cache: cache).verifyAttestation(
                    keyId: fixture.keyId,
                    attestation: fixture.attestation,
                    clientDataHash: fixture.clientDataHash,
                    now: fixture.leafNotAfter.addingTimeInterval(86_400)
                )
            }
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
