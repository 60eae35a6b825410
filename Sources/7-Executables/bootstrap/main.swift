// The Lambda custom runtime entry point (`provided.al2023` / `provided.al2` run this file's binary), and the
// operator CLI when started as `attestgate` (the zip's `attestgate` is a link to this binary: one Swift
// runtime and FoundationEssentials in the zip instead of two; docs/deploy.md). The name is checked first, on
// argv[0] as a C string, so the runtime's cold start does no CLI work.
internal import App
internal import AttestCore
internal import CShims
internal import Glibc
internal import HTTPClient
internal import LambdaRuntime
internal import OperatorCLI

if CommandLine.argc > 0, OperatorCLI.isInvoked(as: CommandLine.unsafeArgv[0]) {
    exit(await OperatorCLI.run(Array(CommandLine.arguments.dropFirst())))
}

// One malloc arena for the process, before any other thread exists: glibc gives each new thread that
// allocates an arena of its own (a 64 MiB reservation, its first pages faulted in: ~20 page faults and a
// dozen system calls before the first /next), while the function serves one invocation at a time on a
// handful of threads that seldom allocate at the same moment (docs/performance.md, "Init order").
_ = cshim_malloc_set_arena_max(1)

// libcurl's global state first, before any other thread exists (libcurl-thread(3)).
CurlTransport.globalInit()

// Everything is read once, here, at cold start.
let environment = Environment.process()
let startupLogger = Logger(level: environment["LOG_LEVEL"].flatMap(Logger.Level.init(name:)) ?? .info)
guard let runtimeAPI = environment["AWS_LAMBDA_RUNTIME_API"] else {
    startupLogger.error("AWS_LAMBDA_RUNTIME_API is not set")
    exit(1)
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
    logger = Logger(level: configuration.logLevel)
} catch {
    let (type, message) = InitFailure.describe(error)
    startupLogger.error("init failed", ["errorType": .string(type), "errors": .string(message)])
    do {
        try await client.initError(FunctionError(type: type, message: message))
    } catch {
        startupLogger.error("init error not delivered", ["reason": .string(error.reason.slug)])
    }
    exit(1)
}

let termination = await LambdaRunLoop(client: client, handler: handler, logger: logger).run()
logger.error("runtime loop ended", ["reason": .string(termination.reason)])
exit(1)
