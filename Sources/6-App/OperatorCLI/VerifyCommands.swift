internal import AppAttest
internal import AttestCore
internal import Crypto
internal import FoundationEssentials
internal import Glibc

/// `attestgate verify-attestation` and `attestgate verify-assertion` (docs/api.md section 4): check
/// captured evidence offline. JSON on stdout; exit 0 accepted, 1 rejected, 2 usage error.
enum VerifyCommands {
    static let attestationUsage = """
        usage: attestgate verify-attestation --team-id T --bundle-id B --key-id B64
                 (--challenge B64 | --client-data-hash B64) [--development] [--at ISO8601]
                 [--trust-root PEM] < attestation (base64 or raw CBOR)
        """

    static let assertionUsage = """
        usage: attestgate verify-assertion --team-id T --bundle-id B --public-key B64 (DER SPKI or X9.62)
                 --counter N (--client-data B64 | --client-data-hash B64) < assertion (base64 or raw CBOR)
        """

    static func verifyAttestation(_ arguments: [String]) -> Int32 {
        guard
            let options = CommandOptions(
                arguments,
                values: [
                    "--team-id", "--bundle-id", "--key-id", "--challenge", "--client-data-hash", "--at", "--trust-root",
                ],
                flags: ["--development"]
            ),
            let teamId = options["--team-id"], let bundleIds = options["--bundle-id"].map(splitBundleIds),
            let keyId = options["--key-id"].flatMap(decodeBase64),
            let clientDataHash = clientDataHash(challenge: options["--challenge"], hash: options["--client-data-hash"])
        else { return usage(attestationUsage) }
        guard let now = verificationTime(options["--at"]) else {
            return usage("--at must be ISO 8601 like 2024-04-18T16:14:54Z or 2024-04-18T16:14:54+00:00")
        }
        guard let trust = trust(rootPath: options["--trust-root"]) else { return 2 }
        guard let attestation = CLIOutput.readStandardInput().flatMap(evidenceBytes) else {
            return usage("standard input must hold the attestation as base64 or raw CBOR")
        }
        let environment: AppAttestEnvironment = options.flags.contains("--development") ? .development : .production
        let verifier = AppAttestVerifier(teamId: teamId, bundleIds: bundleIds, environment: environment, trust: trust)
        do {
            // What key registration accepts: Apple's steps decide; the ATTEST receipt's check is reported.
            let registration = try verifier.verifyRegistration(
                keyId: keyId,
                attestation: attestation,
                clientDataHash: clientDataHash,
                now: now
            )
            let key = registration.key
            var fields: [String: JSONValue] = [
                "result": .string("accepted"), "keyId": .string(Bytes.base64(key.keyId)),
                "environment": .string(key.environment.rawValue),
                "publicKey": .string(Bytes.base64(key.publicKey.derRepresentation)),
                "receipt": .string(registration.receiptVerified ? "verified" : "unverified"),
            ]
            if let refusal = registration.receiptRefusal { fields["receiptReason"] = .string(refusal.reason.slug) }
            CLIOutput.json(.object(fields))
            return 0
        } catch {
            return rejected(error)
        }
    }

    static func verifyAssertion(_ arguments: [String]) -> Int32 {
        guard
            let options = CommandOptions(
                arguments,
                values: [
                    "--team-id", "--bundle-id", "--public-key", "--counter", "--client-data", "--client-data-hash",
                ],
                flags: []
            ),
            let teamId = options["--team-id"], let bundleIds = options["--bundle-id"].map(splitBundleIds),
            let keyBytes = options["--public-key"].flatMap(decodeBase64),
            let counter = options["--counter"].flatMap({ UInt32($0) }),
            let clientDataHash = clientDataHash(
                challenge: options["--client-data"],
                hash: options["--client-data-hash"]
            )
        else { return usage(assertionUsage) }
        guard let publicKey = try? ECPublicKey(derOrX962: keyBytes) else {
            return usage("--public-key must be a P-256 key as DER SPKI or X9.62, base64")
        }
        guard let assertion = CLIOutput.readStandardInput().flatMap(evidenceBytes) else {
            return usage("standard input must hold the assertion as base64 or raw CBOR")
        }
        let verifier = AppAttestVerifier(teamId: teamId, bundleIds: bundleIds, environment: .production)
        do {
            let newCounter = try verifier.verifyAssertion(
                publicKey: publicKey,
                assertion: assertion,
                clientDataHash: clientDataHash,
                storedCounter: counter
            )
            CLIOutput.json(.object(["result": .string("accepted"), "counter": .int(Int64(newCounter))]))
            return 0
        } catch {
            return rejected(error)
        }
    }

    // MARK: - Helpers

    private static func usage(_ text: String) -> Int32 {
        CLIOutput.usage(text)
        return 2
    }

    private static func rejected(_ error: AppAttestError) -> Int32 {
        CLIOutput.json(.object(["result": .string("rejected"), "reason": .string(error.reason.slug)]))
        return 1
    }

    private static func splitBundleIds(_ text: String) -> [String] {
        text.split(separator: ",").map { String($0) }
    }

    private static func decodeBase64(_ text: String) -> [UInt8]? {
        Bytes.fromBase64(text) ?? Bytes.fromBase64URL(text)
    }

    /// Exactly one of the two: the challenge (hashed, as our clients do) or the hash itself.
    private static func clientDataHash(challenge: String?, hash: String?) -> [UInt8]? {
        switch (challenge.flatMap(decodeBase64), hash.flatMap(decodeBase64)) {
        case (let data?, nil) where challenge != nil && hash == nil: return Digest.sha256(data)
        case (nil, let given?) where challenge == nil: return given
        default: return nil
        }
    }

    private static func verificationTime(_ text: String?) -> Date? {
        guard let text else { return SystemClock().now() }
        return Timestamp.parse(text)
    }

    /// Apple's roots, or a PEM file when `--trust-root` is given outside production.
    private static func trust(rootPath: String?) -> AppAttestTrust? {
        guard let rootPath else { return .apple }
        let environment = getenv("ATTESTGATE_ENV").map { String(cString: $0) } ?? "production"
        guard environment == "development" else {
            CLIOutput.usage("--trust-root is refused unless ATTESTGATE_ENV=development")
            return nil
        }
        guard let data = FileManager.default.contents(atPath: rootPath),
            let root = try? Certificate(pemRepresentation: String(decoding: data, as: UTF8.self))
        else {
            CLIOutput.usage("--trust-root \(rootPath) is not a readable PEM certificate")
            return nil
        }
        return .synthetic(root: root)
    }

    /// Standard input as raw CBOR, or as base64 (surrounding whitespace ignored).
    private static func evidenceBytes(_ input: [UInt8]) -> [UInt8]? {
        guard !input.isEmpty else { return nil }
        let text = String(decoding: input, as: UTF8.self).filter { !$0.isWhitespace }
        if input.allSatisfy({ $0 < 0x80 }), let decoded = decodeBase64(text), !decoded.isEmpty { return decoded }
        return input
    }
}
