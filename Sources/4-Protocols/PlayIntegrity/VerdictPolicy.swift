package import AttestCore
internal import Crypto
package import FoundationEssentials

/// The result of one verdict check: the verifiers' one `PolicyResult` shape (AttestCore).
package typealias VerdictResult = PolicyResult<PlayIntegrityError.Reason>

/// One check on a decoded payload (integrity verdicts, Android Developers; docs/playintegrity.md).
package protocol VerdictPolicy: Sendable {
    func evaluate(_ payload: IntegrityPayload, now: Date) -> VerdictResult
}

/// `requestDetails.requestPackageName` is our package.
package struct RequestPackagePolicy: VerdictPolicy {
    package let packageName: String
    package init(packageName: String) { self.packageName = packageName }

    package func evaluate(_ payload: IntegrityPayload, now: Date) -> VerdictResult {
        guard let name = payload.requestPackageName else { return .fail(.packageMissing) }
        guard name == packageName else { return .fail(.packageMismatch) }
        if let appName = payload.appPackageName, appName != packageName { return .fail(.packageMismatch) }
        return .pass
    }
}

/// `requestDetails.requestHash` equals the hash the server recomputed from the request it received.
/// A classic-request token carries `nonce` instead and is refused here.
package struct RequestHashPolicy: VerdictPolicy {
    package let expected: String
    package init(expected: String) { self.expected = expected }

    package func evaluate(_ payload: IntegrityPayload, now: Date) -> VerdictResult {
        guard let hash = payload.requestHash else { return .fail(.requestHashMissing) }
        guard !expected.isEmpty, ConstantTime.equal(Array(hash.utf8), Array(expected.utf8)) else {
            return .fail(.requestHashMismatch)
        }
        return .pass
    }
}

/// `requestDetails.timestampMillis` lies within `[now − maxAge, now + maxSkew]`.
package struct TimestampFreshnessPolicy: VerdictPolicy {
    package let maxAge: Duration
    package let maxSkew: Duration
    package init(maxAge: Duration, maxSkew: Duration) {
        self.maxAge = maxAge
        self.maxSkew = maxSkew
    }

    package func evaluate(_ payload: IntegrityPayload, now: Date) -> VerdictResult {
        guard let stamp = payload.timestampMillis else { return .fail(.timestampMissing) }
        let nowMillis = Int64((now.timeIntervalSince1970 * 1000).rounded(.down))
        let (age, overflow) = nowMillis.subtractingReportingOverflow(stamp)
        if overflow { return .fail(.timestampStale) }
        if age > Self.millis(maxAge) { return .fail(.timestampStale) }
        if -age > Self.millis(maxSkew) { return .fail(.timestampInFuture) }
        return .pass
    }

    private static func millis(_ duration: Duration) -> Int64 {
        duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000
    }
}

/// `appIntegrity.appRecognitionVerdict` is `PLAY_RECOGNIZED` (`UNEVALUATED` is not a pass).
package struct AppRecognitionPolicy: VerdictPolicy {
    package init() {}

    package func evaluate(_ payload: IntegrityPayload, now: Date) -> VerdictResult {
        guard let verdict = payload.appRecognitionVerdict else { return .fail(.appVerdictMissing) }
        return verdict == "PLAY_RECOGNIZED" ? .pass : .fail(.appNotRecognized)
    }
}

/// `appIntegrity.certificateSha256Digest` contains one of our release signing digests.
package struct CertificateDigestPolicy: VerdictPolicy {
    /// The configured digests, normalised (`CertificateDigest`).
    package let digests: Set<String>
    package init(digests: [String]) {
        self.digests = Set(digests.compactMap(CertificateDigest.normalized).filter { !$0.isEmpty })
    }

    package func evaluate(_ payload: IntegrityPayload, now: Date) -> VerdictResult {
        guard let reported = payload.certificateSha256Digest, !reported.isEmpty else {
            return .fail(.certificateDigestMissing)
        }
        // Compared after normalising both sides: Play Console's hex and Play's base64url are one digest.
        let matches = reported.contains { CertificateDigest.normalized($0).map(digests.contains) ?? false }
        return matches ? .pass : .fail(.certificateDigestMismatch)
    }
}

/// `deviceIntegrity.deviceRecognitionVerdict` carries the required label. An empty or missing list
/// (root, hooking, an emulator) and `MEETS_VIRTUAL_INTEGRITY` / `MEETS_BASIC_INTEGRITY` alone fail.
package struct DeviceIntegrityPolicy: VerdictPolicy {
    package let level: DeviceIntegrityLevel
    package init(level: DeviceIntegrityLevel) { self.level = level }

    package func evaluate(_ payload: IntegrityPayload, now: Date) -> VerdictResult {
        guard let labels = payload.deviceRecognitionVerdict else { return .fail(.deviceVerdictMissing) }
        return labels.contains(where: level.acceptedLabels.contains) ? .pass : .fail(.deviceIntegrityInsufficient)
    }
}

/// A Play Console test response (`testingDetails`) is refused where real verdicts are required.
package struct TestingResponsePolicy: VerdictPolicy {
    package init() {}

    package func evaluate(_ payload: IntegrityPayload, now: Date) -> VerdictResult {
        guard payload.hasTestingDetails else { return .pass }
        // Present but explicitly false is not a test response; anything else is refused.
        return payload.isTestingResponse == false ? .pass : .fail(.testingResponse)
    }
}

/// `accountDetails.appLicensingVerdict` is `LICENSED` (only when configured).
package struct LicensingPolicy: VerdictPolicy {
    package init() {}

    package func evaluate(_ payload: IntegrityPayload, now: Date) -> VerdictResult {
        guard let verdict = payload.appLicensingVerdict else { return .fail(.licensingMissing) }
        return verdict == "LICENSED" ? .pass : .fail(.notLicensed)
    }
}

/// The checks of one verification, in the order of docs/api.md section 3; the first failure decides.
package struct VerdictPolicies: Sendable {
    package let policies: [any VerdictPolicy]

    package init(_ policies: [any VerdictPolicy]) { self.policies = policies }

    /// The standard set for `configuration`, binding to `expectedRequestHash`.
    package static func standard(
        _ configuration: PlayIntegrityConfiguration,
        expectedRequestHash: String,
        deviceIntegrity: DeviceIntegrityLevel? = nil,
        maxDeviceActivity: DeviceActivityLevel = .routeDefault
    ) -> VerdictPolicies {
        var policies: [any VerdictPolicy] = [
            RequestPackagePolicy(packageName: configuration.packageName),
            RequestHashPolicy(expected: expectedRequestHash),
            TimestampFreshnessPolicy(maxAge: configuration.maxTokenAge, maxSkew: configuration.maxClockSkew),
            AppRecognitionPolicy(),
            CertificateDigestPolicy(digests: configuration.certificateDigests),
            DeviceIntegrityPolicy(level: deviceIntegrity ?? configuration.deviceIntegrity),
            DeviceActivityPolicy(maxLevel: maxDeviceActivity),
        ]
        if configuration.refuseTestingResponses { policies.append(TestingResponsePolicy()) }
        if configuration.requireLicensed { policies.append(LicensingPolicy()) }
        return VerdictPolicies(policies)
    }

    package func evaluate(_ payload: IntegrityPayload, now: Date) -> VerdictResult {
        for policy in policies {
            if case .fail(let reason, let detail) = policy.evaluate(payload, now: now) {
                return .fail(reason, detail: detail)
            }
        }
        return .pass
    }
}
