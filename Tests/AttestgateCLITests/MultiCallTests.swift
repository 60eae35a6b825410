import AttestCore
import OperatorCLI
import Testing

/// One shipped binary (docs/deploy.md): `bootstrap` is the operator CLI when started as `attestgate` and the
/// Lambda runtime under any other name.
@Suite struct MultiCallTests {
    @Test(arguments: ["attestgate", "./attestgate", "/var/task/attestgate", "/usr/local/bin/attestgate"])
    func theCLIAnswersToItsName(_ name: String) {
        #expect(OperatorCLI.isInvoked(as: name))
    }

    @Test(arguments: [
        "bootstrap", "/var/task/bootstrap", "attestgate2", "xattestgate", "attestgate.old", "/attestgate/bootstrap",
        "attestgate/", "", "ATTESTGATE",
    ])
    func everyOtherNameIsTheRuntime(_ name: String) {
        #expect(!OperatorCLI.isInvoked(as: name))
    }

    @Test func anEmptyArgvIsTheRuntime() {
        #expect(!OperatorCLI.isInvoked(as: nil))
    }

    @Test func startedThroughTheLinkTheBinaryIsTheCLI() async {
        let outcome = await CLIRunner.run([])
        #expect(outcome.status == 2)
        #expect(outcome.stderr.contains("usage: attestgate <command>"))
    }

    /// Under its own name the same binary ignores CLI arguments and starts the runtime, which refuses to run
    /// without the Runtime API's address: exit 1 and its log line, no CLI output.
    @Test func startedAsBootstrapTheBinaryIsTheRuntime() async {
        let outcome = await CLIRunner.run(
            program: CLIRunner.bootstrap,
            ["config", "check"],
            environment: ConfigCommandTests.valid
        )
        #expect(outcome.status == 1)
        #expect((outcome.stdout + outcome.stderr).contains("AWS_LAMBDA_RUNTIME_API is not set"))
        #expect(!outcome.stdout.contains("\"result\""))
        #expect(!outcome.stderr.contains("usage: attestgate"))
    }
}
