// attestgate-demo: the scripted session `make run` plays, and a reference client for app authors.
//
//   attestgate-demo ca --dir DIR          create (once) the synthetic Apple CA; prints the root's path
//   attestgate-demo session [options]     play the scripted session against a running local stack
//
// Read `AppleClient.swift` and `AndroidClient.swift` for what an app must send (docs/api.md section 2);
// `Session.swift` is the story; everything else is plumbing. Not part of the Lambda zip.
internal import Glibc

let arguments = Array(CommandLine.arguments.dropFirst())
let status: Int32
switch arguments.first {
case "ca": status = CACommand.run(Array(arguments.dropFirst()))
case "session": status = await SessionCommand.run(Array(arguments.dropFirst()))
default:
    print(
        """
        usage: attestgate-demo ca --dir DIR
               attestgate-demo session --front URL --harness URL --google URL --upstream URL --ca DIR
                   [--check] [--budget N]   (DynamoDB from DYNAMODB_ENDPOINT, TABLE_NAME, AWS_*)
        """
    )
    status = 2
}
exit(status)
