internal import Glibc

/// The local DynamoDB every suite that needs one uses: moto behind the stand-in's rules, at
/// `DYNAMODB_ENDPOINT`, which `make test` sets (local-harness/with_moto.sh). Nil when the variable is unset or
/// empty: those suites are then skipped, with `skipMessage`.
public enum LocalDynamoDB {
    public static let endpoint: String? = getenv("DYNAMODB_ENDPOINT").map { String(cString: $0) }.flatMap {
        $0.isEmpty ? nil : $0
    }

    public static let skipMessage =
        "DYNAMODB_ENDPOINT is not set: run `make test` or `local-harness/with_moto.sh swift test`"
}
