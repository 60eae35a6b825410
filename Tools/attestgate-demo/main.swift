// attestgate-demo: the scripted session `make run` plays, and a reference client for app authors.
//
//   attestgate-demo ca --dir DIR          create (once) the synthetic Apple CA; prints the root's path
//   attestgate-demo session [options]     play the scripted session against a running local stack
//   attestgate-demo enclave --ca DIR      a simulated Secure Enclave on stdin/stdout (the Swift client's tests)
//   attestgate-demo wire-vectors          the wire contract's known answers, from the server's own code
//
// The iOS device is played by the shipped client library (Clients/swift, `AppleClient.swift`); read
// `AndroidClient.swift` for what an Android app sends (docs/api.md section 2). `Session.swift` is the
// story; everything else is plumbing. Not part of the Lambda zip.
internal import Glibc

let arguments = Array(CommandLine.arguments.dropFirst())
let status: Int32
switch arguments.first {
case "ca": status = CACommand.run(Array(arguments.dropFirst()))
case "session": status = await SessionCommand.run(Array(arguments.dropFirst()))
case "enclave": status = await EnclaveCommand.run(Array(arguments.dropFirst()))
case "wire-vectors": status = WireVectorsCommand.run(Array(arguments.dropFirst()))
default:
    print(
        """
        usage: attestgate-demo ca --dir DIR
               attestgate-demo session --front URL --harness URL --google URL --upstream URL --ca DIR
                   [--check] [--budget N]   (DynamoDB from DYNAMODB_ENDPOINT, TABLE_NAME, AWS_*)
               attestgate-demo enclave --ca DIR [--team-id T] [--bundle-id B]
               attestgate-demo wire-vectors
        """
    )
    status = 2
}
exit(status)
