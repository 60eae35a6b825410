import AttestCore
import Crypto
import Testing

@testable import AppAttest

/// Real assertions: each verifies with its key, client data and previous counter, except the one the
/// fixtures mark negative; each is refused once its counter has been seen.
@Suite struct FixtureAssertionTests {
    struct Case: CustomTestStringConvertible, Sendable {
        let name: String
        let assertion: [UInt8]
        let clientData: [UInt8]
        let publicKey: [UInt8]
        let previousCounter: UInt32
        let counter: UInt32
        let teamId: String
        let bundleId: String
        let valid: Bool
        var testDescription: String { name }
    }

    static let cases: [Case] = FixtureLoader.assertionFixtures.flatMap { name -> [Case] in
        let json = FixtureLoader.json(name)
        return (json["assertions"]?.arrayValue ?? []).map { entry in
            Case(
                name: name,
                assertion: Bytes.fromBase64(entry["assertion_b64"]?.stringValue ?? "") ?? [],
                clientData: Array((entry["client_data_utf8"]?.stringValue ?? "").utf8),
                publicKey: Bytes.fromBase64(entry["public_key_x963_b64"]?.stringValue ?? "") ?? [],
                previousCounter: UInt32(entry["previous_counter"]?.intValue ?? 0),
                counter: UInt32(entry["counter"]?.intValue ?? 0),
                teamId: json["team_id"]?.stringValue ?? "",
                bundleId: json["bundle_id"]?.stringValue ?? "",
                valid: entry["expected_outcome"]?.stringValue?.hasPrefix("VALID") == true
            )
        }
    }

    @Test func everyFixtureWithAssertionsIsCovered() {
        #expect(Self.cases.count == 11)
        #expect(Self.cases.filter { !$0.valid }.map(\.name) == ["thedhejavu-appattest-rs.json"])
    }

    func verify(_ c: Case, storedCounter: UInt32? = nil, clientData: [UInt8]? = nil) throws -> UInt32 {
        let verifier = AppAttestVerifier(teamId: c.teamId, bundleIds: [c.bundleId], environment: .production)
        return try verifier.verifyAssertion(
            publicKey: try ECPublicKey(p256X962: c.publicKey),
            assertion: c.assertion,
            clientDataHash: Digest.sha256(clientData ?? c.clientData),
            storedCounter: storedCounter ?? c.previousCounter
        )
    }

    @Test(arguments: cases) func verifiesUnlessMarkedNegative(_ c: Case) throws {
        if c.valid {
            #expect(try verify(c) == c.counter)
        } else {
            #expect(throws: AppAttestError(.assertionBadSignature)) { try verify(c) }
        }
    }

    @Test(arguments: cases.filter(\.valid)) func refusedWhenTheCounterWasAlreadySeen(_ c: Case) {
        #expect(throws: AppAttestError(.assertionCounterReplay)) { try verify(c, storedCounter: c.counter) }
    }

    @Test(arguments: cases.filter(\.valid)) func refusedForOtherClientData(_ c: Case) {
        #expect(throws: AppAttestError(.assertionBadSignature)) { try verify(c, clientData: c.clientData + [0x20]) }
    }
}
