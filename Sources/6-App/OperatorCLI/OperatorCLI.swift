internal import Glibc

/// The operator CLI, `attestgate` (docs/api.md §4-§6). It ships inside `bootstrap`: the zip's `attestgate`
/// is a link to the one binary, which runs this when `argv[0]`'s basename is `attestgate` and the Lambda
/// runtime otherwise (docs/deploy.md). One file per command; this one only dispatches on the first argument.
package enum OperatorCLI {
    /// Whether the process was started as `attestgate` (any directory): `argv[0]`'s last path component.
    ///
    /// Compared on the C string, so the runtime path pays one `strrchr` and one `strcmp` and nothing of
    /// the CLI (no argument array, no string, no metadata) before its own cold start.
    /// - Parameter programName: `argv[0]`, or nil when the process was started with an empty `argv`.
    /// - Returns: true for `attestgate`, `./attestgate`, `/var/task/attestgate`; false for anything else.
    package static func isInvoked(as programName: UnsafePointer<CChar>?) -> Bool {
        guard let programName else { return false }
        let base = strrchr(programName, 0x2F).map { UnsafePointer($0 + 1) } ?? programName
        return strcmp(base, "attestgate") == 0
    }

    /// Runs one command to its end.
    /// - Parameter arguments: the arguments after the program name.
    /// - Returns: the exit status: 0 success, 1 rejected or failed, 2 usage error.
    package static func run(_ arguments: [String]) async -> Int32 {
        let rest = Array(arguments.dropFirst())
        switch arguments.first {
        case "verify-attestation": return VerifyCommands.verifyAttestation(rest)
        case "verify-assertion": return VerifyCommands.verifyAssertion(rest)
        case "config": return ConfigCommand.run(rest)
        case "table": return await TableCommand.run(rest)
        case "device": return await DeviceCommand.run(rest)
        case "ceiling": return await CeilingCommand.run(rest)
        case "debug-token": return await DebugTokenCommand.run(rest)
        default:
            CLIOutput.usage(
                """
                usage: attestgate <command> [options]
                  verify-attestation   check a captured App Attest attestation (docs/api.md §4)
                  verify-assertion     check a captured App Attest assertion
                  config check         validate the settings in the environment as the Lambda would (docs/api.md §5)
                  table                create|describe the DynamoDB table (docs/api.md §6) at DYNAMODB_ENDPOINT
                  device               show|block|unblock|grant: one device's state and live controls (docs/operations.md)
                  ceiling              show|raise: the day's ceiling and a raise of its limits (docs/operations.md)
                  debug-token          create|list|revoke: tokens for simulators and CI (docs/clients.md)
                """
            )
            return 2
        }
    }
}
