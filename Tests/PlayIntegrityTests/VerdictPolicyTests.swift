import AttestCore
import FoundationEssentials
import Testing

@testable import PlayIntegrity

@Suite struct VerdictPolicyTests {
    static func evaluate(
        _ document: JSONValue,
        configuration: PlayIntegrityConfiguration = Fixture.configuration,
        expectedHash: String = Fixture.requestHash,
        level: DeviceIntegrityLevel? = nil,
        now: Date = Fixture.now
    ) throws -> VerdictResult {
        let payload = try IntegrityPayload(decodeResponse: document)
        return VerdictPolicies.standard(configuration, expectedRequestHash: expectedHash, deviceIntegrity: level)
            .evaluate(payload, now: now)
    }

    static func pass() throws -> JSONValue { try Fixture.json("decode_standard_pass_minimal.json") }

    // MARK: Every fixture response

    @Test(arguments: [
        ("decode_standard_pass_minimal.json", VerdictResult.pass),
        ("decode_standard_pass_all_optin.json", .pass),
        ("decode_forward_compat_unknown_fields.json", .pass),
        ("decode_standard_virtual_integrity.json", .fail(.deviceIntegrityInsufficient)),
        ("decode_standard_device_fail_unevaluated.json", .fail(.appNotRecognized)),
        ("decode_standard_device_fail_empty_list.json", .fail(.appNotRecognized)),
        ("decode_standard_tampered_app_risky_env.json", .fail(.appNotRecognized)),
        ("decode_testing_response.json", .fail(.testingResponse)),
        ("decode_classic_doc_example.json", .fail(.requestHashMissing)),
    ])
    func fixtureVerdicts(_ name: String, _ expected: VerdictResult) throws {
        #expect(try Self.evaluate(try Fixture.json(name)) == expected)
    }

    @Test func realClassicTokenIsRefusedForItsNonceEvenForItsOwnPackage() throws {
        let document = try Fixture.json("decode_classic_real_new_vs_legacy_verdicts.json")
        let configuration = PlayIntegrityConfiguration(
            packageName: "gr.nikolasspyr.integritycheck",
            certificateDigests: ["F5UrXPhnBbreh3Q_WjMe_kyYK_tNoNL9XXC_wjXPeeM"]
        )
        let now = Date(timeIntervalSince1970: 1_737_217_159.457 + 5)
        #expect(try Self.evaluate(document, configuration: configuration, now: now) == .fail(.requestHashMissing))
        // Its new-style device verdict is BASIC only; the legacy list (DEVICE + STRONG) must not count.
        let payload = try IntegrityPayload(decodeResponse: document)
        #expect(
            DeviceIntegrityPolicy(level: .device).evaluate(payload, now: now) == .fail(.deviceIntegrityInsufficient)
        )
    }

    @Test func bothFailedDeviceShapesAreRefusedByTheDevicePolicy() throws {
        let missing = try IntegrityPayload(
            decodeResponse: try Fixture.json("decode_standard_device_fail_unevaluated.json")
        )
        let empty = try IntegrityPayload(
            decodeResponse: try Fixture.json("decode_standard_device_fail_empty_list.json")
        )
        let policy = DeviceIntegrityPolicy(level: .device)
        #expect(policy.evaluate(missing, now: Fixture.now) == .fail(.deviceVerdictMissing))
        #expect(policy.evaluate(empty, now: Fixture.now) == .fail(.deviceIntegrityInsufficient))
    }

    @Test func tamperedAppAlsoFailsTheDigestAndLicensingChecks() throws {
        let payload = try IntegrityPayload(
            decodeResponse: try Fixture.json("decode_standard_tampered_app_risky_env.json")
        )
        #expect(
            CertificateDigestPolicy(digests: [Fixture.digest]).evaluate(payload, now: Fixture.now)
                == .fail(.certificateDigestMismatch)
        )
        #expect(LicensingPolicy().evaluate(payload, now: Fixture.now) == .fail(.notLicensed))
    }

    /// A real decode reports `F5UrXPhnBbreh3Q_WjMe_kyYK_tNoNL9XXC_wjXPeeM`: every spelling of those
    /// 32 bytes an operator may paste matches it; a SHA-1 fingerprint or one flipped byte does not.
    @Test(arguments: [
        ("17:95:2B:5C:F8:67:05:BA:DE:87:74:3F:5A:33:1E:FE:4C:98:2B:FB:4D:A0:D2:FD:5D:70:BF:C2:35:CF:79:E3", true),
        ("17:95:2b:5c:f8:67:05:ba:de:87:74:3f:5a:33:1e:fe:4c:98:2b:fb:4d:a0:d2:fd:5d:70:bf:c2:35:cf:79:e3", true),
        (" 17952B5CF86705BADE87743F5A331EFE4C982BFB4DA0D2FD5D70BFC235CF79E3 ", true),
        ("F5UrXPhnBbreh3Q_WjMe_kyYK_tNoNL9XXC_wjXPeeM", true),
        ("F5UrXPhnBbreh3Q/WjMe/kyYK/tNoNL9XXC/wjXPeeM=", true),
        ("17:95:2B:5C:F8:67:05:BA:DE:87:74:3F:5A:33:1E:FE:4C:98:2B:FB:4D:A0:D2:FD:5D:70:BF:C2:35:CF:79:E4", false),
        ("G5UrXPhnBbreh3Q_WjMe_kyYK_tNoNL9XXC_wjXPeeM", false),
        ("17:95:2B:5C:F8:67:05:BA:DE:87:74:3F:5A:33:1E:FE:4C:98:2B:FB", false),
    ])
    func digestsCompareAfterNormalising(configured: String, matches: Bool) throws {
        let payload = try IntegrityPayload(
            decodeResponse: try Fixture.json("decode_classic_real_new_vs_legacy_verdicts.json")
        )
        #expect(
            CertificateDigestPolicy(digests: [configured]).evaluate(payload, now: Fixture.now)
                == (matches ? .pass : .fail(.certificateDigestMismatch))
        )
    }

    @Test func onlyColonFingerprintsOfThirtyTwoBytesAreDigests() {
        #expect(CertificateDigest.normalized("AB:CD") == nil)
        #expect(CertificateDigest.normalized(String(repeating: "AB:", count: 20) + "AB") == nil)
        #expect(CertificateDigest.normalized(String(repeating: "A:", count: 31) + "A") == nil)
        #expect(CertificateDigest.normalized(String(repeating: "ZZ:", count: 31) + "ZZ") == nil)
        // Not 32 bytes in any encoding: compared exactly as written.
        #expect(CertificateDigest.normalized("6a6a1474b5cbbb2b1aa57e0bc3") == "6a6a1474b5cbbb2b1aa57e0bc3")
    }

    @Test func testingResponseIsAcceptedOnlyWhereConfigured() throws {
        var development = Fixture.configuration
        development.refuseTestingResponses = false
        #expect(
            try Self.evaluate(try Fixture.json("decode_testing_response.json"), configuration: development) == .pass
        )
        let notTesting = try Self.pass().setting(
            ["tokenPayloadExternal", "testingDetails"],
            to: .object(["isTestingResponse": .bool(false)])
        )
        #expect(try Self.evaluate(notTesting) == .pass)
        let emptyDetails = try Self.pass().setting(["tokenPayloadExternal", "testingDetails"], to: .object([:]))
        #expect(try Self.evaluate(emptyDetails) == .fail(.testingResponse))
    }

    // MARK: Each field missing → rejected with its own reason

    @Test(arguments: [
        (["requestDetails", "requestPackageName"], PlayIntegrityError.Reason.packageMissing),
        (["requestDetails", "requestHash"], .requestHashMissing),
        (["requestDetails", "timestampMillis"], .timestampMissing),
        (["requestDetails"], .packageMissing),
        (["appIntegrity", "appRecognitionVerdict"], .appVerdictMissing),
        (["appIntegrity", "certificateSha256Digest"], .certificateDigestMissing),
        (["appIntegrity"], .appVerdictMissing),
        (["deviceIntegrity", "deviceRecognitionVerdict"], .deviceVerdictMissing),
        (["deviceIntegrity"], .deviceVerdictMissing),
    ])
    func missingFieldIsRejected(_ path: [String], _ reason: PlayIntegrityError.Reason) throws {
        let document = try Self.pass().setting(["tokenPayloadExternal"] + path, to: nil)
        #expect(try Self.evaluate(document) == .fail(reason))
    }

    @Test func missingPayloadIsRejectedNotUnavailable() {
        #expect(throws: PlayIntegrityError(.payloadMissing)) {
            try IntegrityPayload(decodeResponse: .object(["somethingElse": .object([:])]))
        }
    }

    // MARK: Each field wrong

    @Test(arguments: [
        (
            ["requestDetails", "requestPackageName"], JSONValue.string("com.attacker.app"),
            PlayIntegrityError.Reason.packageMismatch
        ),
        (["appIntegrity", "packageName"], .string("com.attacker.app"), .packageMismatch),
        (["requestDetails", "requestHash"], .string("0000"), .requestHashMismatch),
        (["requestDetails", "requestHash"], .int(5), .requestHashMissing),
        (["requestDetails", "timestampMillis"], .string("abc"), .timestampMissing),
        (["requestDetails", "timestampMillis"], .string("-5"), .timestampMissing),
        (["requestDetails", "timestampMillis"], .string("99999999999999999999"), .timestampMissing),
        (["appIntegrity", "appRecognitionVerdict"], .string("UNRECOGNIZED_VERSION"), .appNotRecognized),
        (["appIntegrity", "appRecognitionVerdict"], .string("UNEVALUATED"), .appNotRecognized),
        (["appIntegrity", "appRecognitionVerdict"], .string("SOME_FUTURE_VALUE"), .appNotRecognized),
        (["appIntegrity", "certificateSha256Digest"], .array([.string("AAAA")]), .certificateDigestMismatch),
        (["appIntegrity", "certificateSha256Digest"], .array([]), .certificateDigestMissing),
        (
            ["deviceIntegrity", "deviceRecognitionVerdict"], .array([.string("MEETS_BASIC_INTEGRITY")]),
            .deviceIntegrityInsufficient
        ),
        (
            ["deviceIntegrity", "deviceRecognitionVerdict"], .array([.string("MEETS_VIRTUAL_INTEGRITY")]),
            .deviceIntegrityInsufficient
        ),
        (["deviceIntegrity", "deviceRecognitionVerdict"], .string("MEETS_DEVICE_INTEGRITY"), .deviceVerdictMissing),
    ])
    func wrongFieldIsRejected(_ path: [String], _ value: JSONValue, _ reason: PlayIntegrityError.Reason) throws {
        let document = try Self.pass().setting(["tokenPayloadExternal"] + path, to: value)
        #expect(try Self.evaluate(document) == .fail(reason))
    }

    @Test func requestHashMustEqualTheExpectedHash() throws {
        #expect(
            try Self.evaluate(try Self.pass(), expectedHash: "aGVsbG8gd29scmQgdGhlcmu") == .fail(.requestHashMismatch)
        )
        #expect(try Self.evaluate(try Self.pass(), expectedHash: "") == .fail(.requestHashMismatch))
    }

    // MARK: Freshness

    @Test func timestampWindowEdges() throws {
        let stamp = Date(timeIntervalSince1970: Double(Fixture.timestampMillis) / 1000)
        let document = try Self.pass()
        #expect(try Self.evaluate(document, now: stamp.addingTimeInterval(120)) == .pass)
        #expect(try Self.evaluate(document, now: stamp.addingTimeInterval(120.01)) == .fail(.timestampStale))
        #expect(try Self.evaluate(document, now: stamp.addingTimeInterval(-30)) == .pass)
        #expect(try Self.evaluate(document, now: stamp.addingTimeInterval(-30.01)) == .fail(.timestampInFuture))
        #expect(try Self.evaluate(document, now: stamp.addingTimeInterval(86_400)) == .fail(.timestampStale))
    }

    @Test func timestampAsJSONNumberIsReadToo() throws {
        let document = try Self.pass().setting(
            ["tokenPayloadExternal", "requestDetails", "timestampMillis"],
            to: .int(Fixture.timestampMillis)
        )
        #expect(try Self.evaluate(document) == .pass)
    }

    @Test func secondsSizedTimestampOfTheClassicDocExampleIsStale() throws {
        let document = try Fixture.json("decode_classic_doc_example.json")
        let payload = try IntegrityPayload(decodeResponse: document)
        let policy = TimestampFreshnessPolicy(maxAge: .seconds(120), maxSkew: .seconds(30))
        #expect(policy.evaluate(payload, now: Fixture.now) == .fail(.timestampStale))
    }

    // MARK: Device level and licensing

    @Test func strongLevelNeedsStrongIntegrity() throws {
        #expect(try Self.evaluate(try Self.pass(), level: .strong) == .fail(.deviceIntegrityInsufficient))
        let strong = try Self.pass().setting(
            ["tokenPayloadExternal", "deviceIntegrity", "deviceRecognitionVerdict"],
            to: .array([.string("MEETS_DEVICE_INTEGRITY"), .string("MEETS_STRONG_INTEGRITY")])
        )
        #expect(try Self.evaluate(strong, level: .strong) == .pass)
        #expect(
            try Self.evaluate(try Fixture.json("decode_forward_compat_unknown_fields.json"), level: .strong) == .pass
        )
    }

    @Test func unknownDeviceLabelsAreIgnored() throws {
        let document = try Self.pass().setting(
            ["tokenPayloadExternal", "deviceIntegrity", "deviceRecognitionVerdict"],
            to: .array([.string("MEETS_SOMETHING_NEW"), .int(3), .string("MEETS_DEVICE_INTEGRITY")])
        )
        #expect(try Self.evaluate(document) == .pass)
    }

    @Test func licensingIsCheckedOnlyWhenConfigured() throws {
        var licensed = Fixture.configuration
        licensed.requireLicensed = true
        #expect(try Self.evaluate(try Self.pass(), configuration: licensed) == .pass)
        let unlicensed = try Self.pass().setting(
            ["tokenPayloadExternal", "accountDetails", "appLicensingVerdict"],
            to: .string("UNLICENSED")
        )
        #expect(try Self.evaluate(unlicensed) == .pass)
        #expect(try Self.evaluate(unlicensed, configuration: licensed) == .fail(.notLicensed))
        let missing = try Self.pass().setting(["tokenPayloadExternal", "accountDetails"], to: nil)
        #expect(try Self.evaluate(missing, configuration: licensed) == .fail(.licensingMissing))
    }

    @Test func aSecondConfiguredDigestIsAccepted() throws {
        let configuration = PlayIntegrityConfiguration(
            packageName: Fixture.packageName,
            certificateDigests: ["other-release-key", Fixture.digest]
        )
        #expect(try Self.evaluate(try Self.pass(), configuration: configuration) == .pass)
        let none = PlayIntegrityConfiguration(packageName: Fixture.packageName, certificateDigests: [])
        #expect(try Self.evaluate(try Self.pass(), configuration: none) == .fail(.certificateDigestMismatch))
    }
}
