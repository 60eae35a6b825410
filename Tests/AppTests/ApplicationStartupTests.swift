import App
import AttestCore
import HTTPClient
import Testing

@Suite struct ApplicationStartupTests {
    static func environment(_ extra: [String: String]) -> Environment {
        var values = ConfigurationTests.minimal.values
        values["UPSTREAM_API_KEY_SECRET_ARN"] = nil
        values["AWS_ACCESS_KEY_ID"] = "AKIDEXAMPLE"
        values["AWS_SECRET_ACCESS_KEY"] = "test-secret"
        for (key, value) in extra { values[key] = value }
        return Environment(values)
    }

    func startupError(_ env: Environment) async -> StartupError? {
        do {
            _ = try await Application.makeHandler(environment: env, transport: CurlTransport(), clock: SystemClock())
            return nil
        } catch let error as StartupError {
            return error
        } catch {
            Issue.record("unexpected \(error)")
            return nil
        }
    }

    @Test func aMissingKeyFileStopsTheStartWithoutItsValue() async {
        let error = await startupError(Self.environment(["UPSTREAM_API_KEY_FILE": "/nonexistent/upstream-key"]))
        #expect(error == StartupError(.secretUnreadable))
        #expect(error?.detail == "UPSTREAM_API_KEY: secret.not_found")
    }

    @Test func aSecretARNNeedsCredentials() throws {
        let arn = "arn:aws:secretsmanager:eu-west-1:1:secret:upstream"
        var values = Self.environment(["UPSTREAM_API_KEY_SECRET_ARN": arn]).values
        values["AWS_ACCESS_KEY_ID"] = nil
        values["AWS_SECRET_ACCESS_KEY"] = nil
        let configuration = try Configuration(environment: Environment(values))
        #expect(throws: StartupError(.secretUnreadable)) {
            _ = try configuration.upstream.apiKey.source(configuration: configuration, transport: CurlTransport())
        }
        let withCredentials = try Configuration(environment: Self.environment(["UPSTREAM_API_KEY_SECRET_ARN": arn]))
        #expect(throws: Never.self) {
            _ = try withCredentials.upstream.apiKey.source(configuration: withCredentials, transport: CurlTransport())
        }
    }

    @Test func diagnosticsIsRefusedInProduction() async {
        let env = Self.environment(["UPSTREAM_API_KEY_FILE": "/nonexistent", "_HANDLER": "diagnostics"])
        #expect(await startupError(env) == StartupError(.diagnosticsInProduction))
        let development = env.with("ATTESTGATE_ENV", "development")
        let built = try? await Application.makeHandler(
            environment: development,
            transport: CurlTransport(),
            clock: SystemClock()
        )
        guard case .diagnostics = built?.0 else {
            Issue.record("expected the diagnostics handler")
            return
        }
    }
}
