package import SigV4

/// The AWS settings read from the environment once at cold start (docs/api.md section 5): credentials from
/// `AWS_ACCESS_KEY_ID`/`AWS_SECRET_ACCESS_KEY`/`AWS_SESSION_TOKEN` (Lambda sets all three), the region
/// from `AWS_REGION`, and `DYNAMODB_ENDPOINT` to point DynamoDB at a local stand-in.
package struct AWSEnvironment: Sendable {
    package var credentials: SigV4Credentials
    package var region: String
    /// The `DYNAMODB_ENDPOINT` override; nil means the regional AWS endpoint.
    package var dynamoDBEndpoint: String?

    /// Reads the settings from `environment` (the process environment, or a dictionary in tests).
    /// - Throws: `AWSError` `aws.configuration` naming the first missing variable (never its value).
    package init(_ environment: [String: String]) throws(AWSError) {
        func require(_ name: String) throws(AWSError) -> String {
            guard let value = environment[name], !value.isEmpty else {
                throw AWSError(.configuration, detail: "\(name) is not set")
            }
            return value
        }
        let token = environment["AWS_SESSION_TOKEN"].flatMap { $0.isEmpty ? nil : $0 }
        self.credentials = SigV4Credentials(
            accessKeyID: try require("AWS_ACCESS_KEY_ID"),
            secretAccessKey: try require("AWS_SECRET_ACCESS_KEY"),
            sessionToken: token
        )
        self.region = try require("AWS_REGION")
        self.dynamoDBEndpoint = environment["DYNAMODB_ENDPOINT"].flatMap { $0.isEmpty ? nil : $0 }
    }

    /// The DynamoDB endpoint to use: the override, or `https://dynamodb.<region>.amazonaws.com`.
    package var dynamoDBURL: String { dynamoDBEndpoint ?? "https://dynamodb.\(region).amazonaws.com" }
}
