internal import App
internal import AttestCore
internal import HTTPClient
internal import LambdaRuntime

/// The custom runtime, from reading the environment to the run loop's end, in one function that runs off the
/// main actor: main.swift's top-level code is main-actor code, and each `await` there came back to the main
/// queue (one more hand-over between threads) before the next step.
enum ColdStart {
    /// Serves invocations until the Runtime API goes away; returns the exit status.
    static func run() async -> Int32 {
        // Everything is read once, here, at cold start.
        let environment = Environment.process()
        let startupLogger = Logger(level: environment["LOG_LEVEL"].flatMap(Logger.Level.init(name:)) ?? .info)
        guard let runtimeAPI = environment["AWS_LAMBDA_RUNTIME_API"] else {
            startupLogger.error("AWS_LAMBDA_RUNTIME_API is not set")
            return 1
        }
        let transport = CurlTransport()
        // The Runtime API has handles of its own: /next and every response, streamed ones included, go out on
        // the one kept connection, which a store or provider request never takes.
        let client = CurlRuntimeAPIClient(endpoint: runtimeAPI, transport: CurlTransport(poolCapacity: 1))

        let handler: Application.Handler
        let logger: Logger
        do {
            let (built, configuration) = try await Application.makeHandler(
                environment: environment,
                transport: transport,
                clock: SystemClock()
            )
            handler = built
            logger = Logger(level: configuration.logLevel, metadata: configuration.logMetadata)
            if !configuration.deprecatedSettings.isEmpty {
                logger.warning(
                    "deprecated setting names",
                    ["renamed": .array(configuration.deprecatedSettings.map(JSONValue.string))]
                )
            }
        } catch {
            let (type, message) = InitFailure.describe(error)
            startupLogger.error("init failed", ["errorType": .string(type), "errors": .string(message)])
            do {
                try await client.initError(FunctionError(type: type, message: message))
            } catch {
                startupLogger.error("init error not delivered", ["reason": .string(error.reason.slug)])
            }
            return 1
        }

        let termination = await LambdaRunLoop(client: client, handler: handler, logger: logger).run()
        logger.error("runtime loop ended", ["reason": .string(termination.reason)])
        return 1
    }
}
