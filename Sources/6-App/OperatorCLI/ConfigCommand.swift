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
        do {
            let configuration = try Configuration(environment: environment)
            return (.object(["result": .string("valid"), "configuration": configuration.summary]), 0)
        } catch {
            return (.object(["result": .string("invalid"), "errors": error.summary]), 1)
        }
    }
}
