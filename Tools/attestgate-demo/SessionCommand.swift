internal import AttestCore
internal import FoundationEssentials
internal import SimulatedDevice

/// `attestgate-demo session …`: reads its options, plays `Session`, prints the summary.
/// Exit status: 0 when every step answered as expected, 1 otherwise (`--check`), 2 for a usage error.
enum SessionCommand {
    struct Options {
        var front = ""
        var harness = ""
        var google = ""
        var upstream = ""
        /// fake Apple (`local-harness/fake_apple.py`): its DeviceCheck counts, read after the tier steps.
        var apple = ""
        var caDirectory = ""
        /// `AI_DAILY_CALL_CEILING` and the generation route's daily allowance as `bootstrap` was given them.
        var budget = 13
        var generationAllowance = 4
        var teamID = "DEMOTEAM01"
        var bundleID = "com.example.flashcards"
        var androidPackage = "com.example.flashcards"
        var certificateDigest = ""
        var check = false
    }

    static func run(_ arguments: [String]) async -> Int32 {
        guard let options = parse(arguments) else {
            print(
                "usage: attestgate-demo session --front URL --harness URL --google URL --upstream URL --apple URL --ca DIR"
            )
            print("         --cert-digest D [--budget N] [--allowance N] [--team-id T] [--bundle-id B] [--check]")
            return 2
        }
        do {
            let session = try Session(options: options, environment: ProcessInfo.processInfo.environment)
            try await session.play()
            session.report.summary()
            try await session.printCounters()
            return session.report.failures == 0 ? 0 : 1
        } catch {
            print("session stopped: \(error)")
            return 1
        }
    }

    static func parse(_ arguments: [String]) -> Options? {
        var options = Options()
        var rest = arguments[...]
        while let flag = rest.popFirst() {
            if flag == "--check" {
                options.check = true
                continue
            }
            guard let value = rest.popFirst() else { return nil }
            switch flag {
            case "--front": options.front = value
            case "--harness": options.harness = value
            case "--google": options.google = value
            case "--upstream": options.upstream = value
            case "--apple": options.apple = value
            case "--ca": options.caDirectory = value
            case "--cert-digest": options.certificateDigest = value
            case "--team-id": options.teamID = value
            case "--bundle-id":
                options.bundleID = value
                options.androidPackage = value
            case "--budget":
                guard let number = Int(value), number > 0 else { return nil }
                options.budget = number
            case "--allowance":
                guard let number = Int(value), number > 0 else { return nil }
                options.generationAllowance = number
            default: return nil
            }
        }
        let required = [
            options.front, options.harness, options.google, options.upstream, options.apple, options.caDirectory,
        ]
        return required.contains("") || options.certificateDigest.isEmpty ? nil : options
    }
}
