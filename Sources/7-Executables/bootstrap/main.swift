// The Lambda custom runtime entry point (`provided.al2023` / `provided.al2` run this file's binary), and the
// operator CLI when started as `attestgate` (the zip's `attestgate` is a link to this binary: one Swift
// runtime and FoundationEssentials in the zip instead of two; docs/deploy.md). The name is checked first, on
// argv[0] as a C string, so the runtime's cold start does no CLI work.
internal import CShims
internal import Glibc
internal import HTTPClient
internal import OperatorCLI

if CommandLine.argc > 0, OperatorCLI.isInvoked(as: CommandLine.unsafeArgv[0]) {
    exit(await OperatorCLI.run(Array(CommandLine.arguments.dropFirst())))
}

// One malloc arena for the process, before any other thread exists: glibc gives each new thread that
// allocates an arena of its own (a 64 MiB reservation, its first pages faulted in: ~20 page faults and a
// dozen system calls before the first /next), while the function serves one invocation at a time on a
// handful of threads that seldom allocate at the same moment (docs/performance-archive.md, "Init order").
_ = cshim_malloc_set_arena_max(1)

// libcurl's global state first, before any other thread exists (libcurl-thread(3)).
CurlTransport.globalInit()

exit(await ColdStart.run())
