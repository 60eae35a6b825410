// libFuzzer harness over the CBOR decoder and the App Attest verifiers.
//
// Built normally (`swift build`), it replays the files named on the command line: a regression
// runner for a saved corpus or crash. Built by `make fuzz` with `-sanitize=fuzzer,address` and
// `-DFUZZING`, it hands control to libFuzzer's driver (this `main` keeps libFuzzer's own out).
internal import FoundationEssentials
internal import Glibc

#if FUZZING
@_silgen_name("LLVMFuzzerRunDriver")
func LLVMFuzzerRunDriver(
    _ argc: UnsafeMutablePointer<Int32>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
    _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> Int32
) -> Int32

var argc = CommandLine.argc
var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
exit(
    LLVMFuzzerRunDriver(&argc, &argv) { data, size in
        FuzzTarget.run(data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? [])
        return 0
    }
)
#else
var replayed = 0
var accepted = 0
for path in CommandLine.arguments.dropFirst() {
    guard let data = FileManager.default.contents(atPath: path) else {
        print("cannot read \(path)")
        exit(2)
    }
    accepted += FuzzTarget.run(Array(data))
    replayed += 1
}
print("replayed \(replayed) inputs without a crash; \(accepted) accepted")
#endif
