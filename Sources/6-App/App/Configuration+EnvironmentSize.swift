extension Configuration {
    /// Lambda's quota on a function's environment: 4 KB for all its variables together, names and values
    /// (https://docs.aws.amazon.com/lambda/latest/dg/gettingstarted-limits.html). A larger one fails to deploy.
    package static let lambdaEnvironmentLimit = 4096

    /// The settings a deployment sets on the function (docs/api.md section 5), whose names and values count
    /// against `lambdaEnvironmentLimit`; scripts/check-contract.py holds this list to the names the code reads.
    package static let deployedSettingNames: Set<String> = [
        "AI_CEILING_SHARDS", "AI_DAILY_CALL_CEILING", "AI_DAILY_COST_CEILING_USD", "AI_DAILY_UNPROVEN_CALL_CEILING",
        "AI_DAILY_UNPROVEN_COST_CEILING_USD", "ALLOW_SEED_RELEASE", "ANDROID_CERT_SHA256", "ANDROID_PACKAGE",
        "APPLE_BUNDLE_IDS", "APPLE_TEAM_ID", "APP_ATTEST_ENVIRONMENT", "APP_ATTEST_RECEIPT_ENDPOINT",
        "APP_ATTEST_TRUST_ROOT", "ATTESTGATE_ENV", "AI_DAILY_CALL_BUDGET", "AI_DAILY_COST_BUDGET_USD",
        "AI_DAILY_UNPROVEN_CALL_BUDGET", "AI_DAILY_UNPROVEN_COST_BUDGET_USD", "BUDGET_TIMEZONE",
        "CHALLENGE_TTL_SECONDS", "DEBUG_TOKENS",
        "DEBUG_TOKENS_IN_PRODUCTION",
        "DEVICECHECK_BUDGET_PER_DEVICE", "DEVICECHECK_ENDPOINT", "DEVICECHECK_KEY_ID", "DEVICECHECK_PRIVATE_KEY_FILE",
        "DEVICECHECK_PRIVATE_KEY_SECRET_ARN", "DEVICE_MARKS", "DEVICE_MARK_MONTHS", "DYNAMODB_ENDPOINT", "GATE_MODE",
        "GOOGLE_SERVICE_ACCOUNT_FILE", "GOOGLE_SERVICE_ACCOUNT_SECRET_ARN", "GOOGLE_TOKEN_ENDPOINT", "LOG_LEVEL",
        "PAID_CLAIM", "PLAY_DECODE_BUDGET_PER_DEVICE", "PLAY_DECODE_DAILY_SOFT_CAP", "PLAY_DEVICE_RECALL",
        "PLAY_INTEGRITY_ENDPOINT", "POWERTOOLS_SERVICE_NAME", "RISK_METRIC_MAX", "ROUTES", "ROUTES_FILE", "TABLE_NAME",
        "UPSTREAM_API_KEY_FILE", "UPSTREAM_API_KEY_SECRET_ARN", "UPSTREAM_AUTH_HEADER", "UPSTREAM_URL",
    ]

    /// The settings Lambda sets itself (reserved names a function cannot set): they do not count.
    package static let lambdaSetNames: Set<String> = [
        "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_REGION", "AWS_LAMBDA_FUNCTION_NAME",
        "AWS_LAMBDA_FUNCTION_MEMORY_SIZE", "AWS_LAMBDA_LOG_LEVEL", "LAMBDA_TASK_ROOT", "_HANDLER",
    ]

    /// The problem of an environment over Lambda's quota, nil within it: `attestgate config check` refuses it, as
    /// `terraform plan` does (infra/lambda.tf), so it never first shows as a failed deploy.
    package static func environmentSizeProblem(_ environment: Environment) -> ConfigurationError.Problem? {
        let bytes = deployedEnvironmentBytes(environment)
        guard bytes > lambdaEnvironmentLimit else { return nil }
        return ConfigurationError.Problem(
            .environmentTooLarge,
            environment["ROUTES"] != nil ? "ROUTES" : "ATTESTGATE_ENV",
            "the settings take \(bytes) bytes, Lambda allows \(lambdaEnvironmentLimit): ship the routes in the zip (ROUTES_FILE, docs/deploy.md)"
        )
    }

    /// The bytes the deployed settings in `environment` take against Lambda's quota (names and values, UTF-8).
    package static func deployedEnvironmentBytes(_ environment: Environment) -> Int {
        environment.values.reduce(0) { total, entry in
            deployedSettingNames.contains(entry.key) ? total + entry.key.utf8.count + entry.value.utf8.count : total
        }
    }
}
