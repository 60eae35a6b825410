/// What a genuine Android install of our app looks like, and how the decode call is made.
package struct PlayIntegrityConfiguration: Sendable {
    /// `ANDROID_PACKAGE`: the app's package name.
    package var packageName: String
    /// `ANDROID_CERT_SHA256`: release signing-certificate digests, as Play reports them (base64url) or as
    /// Play Console shows them (colon-separated hex); compared after normalising (`CertificateDigest`).
    package var certificateDigests: [String]
    /// `PLAY_INTEGRITY_ENDPOINT`.
    package var endpoint: String
    /// The oldest `timestampMillis` accepted, relative to now.
    package var maxTokenAge: Duration
    /// How far `timestampMillis` may lie in the future (clock skew).
    package var maxClockSkew: Duration
    /// The device label required unless a route asks for more.
    package var deviceIntegrity: DeviceIntegrityLevel
    /// Refuse Play Console test responses (`testingDetails`): true in production.
    package var refuseTestingResponses: Bool
    /// Require `accountDetails.appLicensingVerdict == LICENSED`.
    package var requireLicensed: Bool
    /// Total time allowed for one decode call, and never more than the invocation has left.
    package var decodeTimeout: Duration

    package static let defaultEndpoint = "https://playintegrity.googleapis.com"
    /// Google's documented limit for a standard integrity token is far below this; longer is refused.
    package static let maxTokenCharacters = 16_384

    package init(
        packageName: String,
        certificateDigests: [String],
        endpoint: String = defaultEndpoint,
        maxTokenAge: Duration = .seconds(120),
        maxClockSkew: Duration = .seconds(30),
        deviceIntegrity: DeviceIntegrityLevel = .device,
        refuseTestingResponses: Bool = true,
        requireLicensed: Bool = false,
        decodeTimeout: Duration = .seconds(5)
    ) {
        self.packageName = packageName
        self.certificateDigests = certificateDigests
        self.endpoint = endpoint
        self.maxTokenAge = maxTokenAge
        self.maxClockSkew = maxClockSkew
        self.deviceIntegrity = deviceIntegrity
        self.refuseTestingResponses = refuseTestingResponses
        self.requireLicensed = requireLicensed
        self.decodeTimeout = decodeTimeout
    }
}

/// The `deviceRecognitionVerdict` label a check requires.
package enum DeviceIntegrityLevel: String, Sendable, Hashable {
    /// `MEETS_DEVICE_INTEGRITY` (a `MEETS_STRONG_INTEGRITY` device also carries it).
    case device
    /// `MEETS_STRONG_INTEGRITY`, for the most sensitive routes.
    case strong

    /// The labels any one of which satisfies this level.
    var acceptedLabels: Set<String> {
        switch self {
        case .device: ["MEETS_DEVICE_INTEGRITY", "MEETS_STRONG_INTEGRITY"]
        case .strong: ["MEETS_STRONG_INTEGRITY"]
        }
    }
}
