internal import App
internal import AttestCore

/// `attestgate config check`: validates the settings in the environment as the Lambda would at cold
/// start. Prints JSON on stdout; exit 0 valid, 1 invalid, 2 usage error.
enum ConfigCommand {
    static func run(_ arguments: [String]) -> Int32 {
        guard arguments == ["check"] else {
            CLIOutput.usage("usage: attestgate config check")
            return 2
        }
        let (output, status) = check(.process())
        CLIOutput.json(output)
        return status
    }

    static func check(_ environment: Environment) -> (JSONValue, Int32) {
        let size = Configuration.environmentSizeProblem(environment)
        do throws(ConfigurationError) {
            let configuration = try Configuration(environment: environment)
            if let size { throw ConfigurationError([size]) }
            return (
                .object([
                    "result": .string("valid"), "configuration": configuration.summary,
                    "environmentBytes": .int(Int64(Configuration.deployedEnvironmentBytes(environment))),
                ]), 0
            )
        } catch {
            let problems = error.problems + (size.map { [$0] } ?? []).filter { !error.problems.contains($0) }
            return (.object(["result": .string("invalid"), "errors": ConfigurationError(problems).summary]), 1)
        }
    }
}
