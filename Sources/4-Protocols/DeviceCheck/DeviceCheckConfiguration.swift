/// How to call Apple's DeviceCheck `validate_device_token`.
package struct DeviceCheckConfiguration: Sendable {
    /// `APPLE_TEAM_ID`: the JWT's `iss`.
    package var teamID: String
    /// `DEVICECHECK_KEY_ID`: the `.p8` key's id, the JWT's `kid`.
    package var keyID: String
    /// `DEVICECHECK_ENDPOINT`.
    package var endpoint: String
    /// Total time allowed for one call, and never more than the invocation has left.
    package var timeout: Duration

    package static let productionEndpoint = "https://api.devicecheck.apple.com"
    package static let developmentEndpoint = "https://api.development.devicecheck.apple.com"
    /// Real device tokens are a few kilobytes of base64; anything longer is refused without a call.
    package static let maxTokenCharacters = 8192

    package init(teamID: String, keyID: String, endpoint: String = productionEndpoint, timeout: Duration = .seconds(3))
    {
        self.teamID = teamID
        self.keyID = keyID
        self.endpoint = endpoint
        self.timeout = timeout
    }
}
