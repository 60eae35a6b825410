internal import Crypto
internal import CryptoTestSupport
internal import Glibc

/// CPU time this thread has used (user + system), in seconds.
func threadCPUSeconds() -> Double {
    var now = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now)
    return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
}

/// Runs `body` repeatedly for `seconds` of CPU time and returns operations per CPU second.
///
/// CPU time, not wall time, because that is what `openssl speed` divides by (its default; `-elapsed`
/// switches it to wall time): time the host gives to other work is counted on neither side.
func perCPUSecond(seconds: Double, _ body: (Int) throws -> Void) rethrows -> Double {
    let start = threadCPUSeconds()
    var count = 0
    while true {
        try body(count)
        count += 1
        if count % 8 == 0 {
            let elapsed = threadCPUSeconds() - start
            if elapsed >= seconds { return Double(count) / elapsed }
        }
    }
}

/// One ECDSA verification of a fixed signature by OpenSSL: what a figure is compared with.
struct ReferenceVerify {
    let key: ECPublicKey
    let message = Array("reference".utf8)
    let signature: [UInt8]

    init(_ kind: PrivateKey.Kind) throws {
        let privateKey = try PrivateKey(generating: kind)
        key = try ECPublicKey(derRepresentation: privateKey.publicKeyDER)
        signature = try privateKey.signatureSHA256(for: message)
    }

    func run(_: Int) throws {
        guard key.isValidSHA256Signature(signature, for: message) else { throw CryptoError(.signatureInvalid) }
    }
}

/// A figure and its reference, measured in alternating windows of equal CPU time.
struct Paired {
    let rate: Double
    let reference: Double
    /// The median, lowest and highest of the windows' ratios.
    let ratio: Double
    let lowest: Double
    let highest: Double

    init(windows: Int, seconds: Double, reference: ReferenceVerify, _ body: (Int) throws -> Void) throws {
        let window = seconds / Double(windows)
        var rates: [Double] = []
        var references: [Double] = []
        for _ in 0..<windows {
            references.append(try perCPUSecond(seconds: window, reference.run))
            rates.append(try perCPUSecond(seconds: window, body))
        }
        func median(_ values: [Double]) -> Double {
            let sorted = values.sorted()
            let middle = sorted.count / 2
            return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
        }
        let ratios = zip(rates, references).map { $0 / $1 }
        self.rate = median(rates)
        self.reference = median(references)
        self.ratio = median(ratios)
        self.lowest = ratios.min() ?? 0
        self.highest = ratios.max() ?? 0
    }
}
