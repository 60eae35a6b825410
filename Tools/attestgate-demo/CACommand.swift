internal import AttestCore
internal import FoundationEssentials
internal import SimulatedDevice

/// `attestgate-demo ca --dir DIR`: makes the synthetic Apple CA the demo signs with and `bootstrap`
/// trusts, once. Later runs reuse it, so a device key registered in one run still chains to the root.
enum CACommand {
    static func run(_ arguments: [String]) -> Int32 {
        guard arguments.count == 2, arguments[0] == "--dir" else {
            print("usage: attestgate-demo ca --dir DIR")
            return 2
        }
        let directory = arguments[1]
        if (try? SimulatedAppleCA(loadingFrom: directory)) == nil {
            do {
                try SimulatedAppleCA(now: SystemClock().now(), name: "AttestGate Demo").save(to: directory)
            } catch {
                print("cannot create the synthetic CA in \(directory): \(error)")
                return 1
            }
        }
        print(SimulatedAppleCA.rootPath(in: directory))
        return 0
    }
}
