// The operator CLI. This file only dispatches on the first argument; each command lives in its own file.
internal import Glibc

let arguments = Array(CommandLine.arguments.dropFirst())
let status: Int32
switch arguments.first {
case "verify-attestation": status = VerifyCommands.verifyAttestation(Array(arguments.dropFirst()))
case "verify-assertion": status = VerifyCommands.verifyAssertion(Array(arguments.dropFirst()))
case "config": status = ConfigCommand.run(Array(arguments.dropFirst()))
case "table": status = await TableCommand.run(Array(arguments.dropFirst()))
default:
    CLIOutput.usage(
        """
        usage: attestgate <command> [options]
          verify-attestation   check a captured App Attest attestation (docs/api.md §4)
          verify-assertion     check a captured App Attest assertion
          config check         validate the settings in the environment as the Lambda would (docs/api.md §5)
          table                create|describe the DynamoDB table (docs/api.md §6) at DYNAMODB_ENDPOINT
        """
    )
    status = 2
}
exit(status)
