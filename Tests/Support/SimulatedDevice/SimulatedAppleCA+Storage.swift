internal import Crypto
internal import CryptoTestSupport
internal import FoundationEssentials

/// Saving and loading a synthetic CA, so that two processes share one: the demo device (which signs
/// attestations with the intermediate's key) and `bootstrap` (which trusts the root through
/// `APP_ATTEST_TRUST_ROOT=<directory>/root.pem`).
///
/// The folder holds each certificate as PEM next to its PKCS#8 private key; it is throw-away test
/// material (`local-harness/.state/` is gitignored) and never a real Apple key.
extension SimulatedAppleCA {
    /// The file names inside the folder, certificate then key.
    static let files = [
        ("root.pem", "root-key.pem"),
        ("intermediate.pem", "intermediate-key.pem"),
        ("receipt-ca.pem", "receipt-ca-key.pem"),
        ("receipt-signer.pem", "receipt-signer-key.pem"),
    ]

    /// An error reading or writing the folder (`detail` names the file).
    package struct StorageError: Error, CustomStringConvertible {
        package let detail: String
        package var description: String { "simulated CA storage: \(detail)" }
    }

    /// Where `bootstrap` looks for the root: `APP_ATTEST_TRUST_ROOT` points at this file.
    package static func rootPath(in directory: String) -> String { directory + "/root.pem" }

    /// Loads the CA saved in `directory` by `save(to:)`.
    /// - Throws: `StorageError` when a file is missing or does not parse.
    package init(loadingFrom directory: String) throws {
        var pairs: [(Certificate, PrivateKey)] = []
        for (certificateFile, keyFile) in Self.files {
            let certificatePEM = try Self.read(directory + "/" + certificateFile)
            let keyPEM = try Self.read(directory + "/" + keyFile)
            guard let certificate = try? Certificate(pemRepresentation: certificatePEM),
                let key = try? PrivateKey(pemRepresentation: keyPEM)
            else { throw StorageError(detail: "\(certificateFile) or \(keyFile) does not parse") }
            pairs.append((certificate, key))
        }
        (root, rootKey) = pairs[0]
        (intermediate, intermediateKey) = pairs[1]
        (receiptCA, receiptCAKey) = pairs[2]
        (receiptSigner, receiptSignerKey) = pairs[3]
    }

    /// Writes every certificate and key into `directory` (which must exist; `local-harness/run.py` makes it 0700).
    /// - Throws: `StorageError` when a file cannot be written.
    package func save(to directory: String) throws {
        let pairs = [
            (root, rootKey), (intermediate, intermediateKey), (receiptCA, receiptCAKey),
            (receiptSigner, receiptSignerKey),
        ]
        for ((certificateFile, keyFile), (certificate, key)) in zip(Self.files, pairs) {
            try Self.write(certificate.pemRepresentation, to: directory + "/" + certificateFile)
            try Self.write(key.pemRepresentation, to: directory + "/" + keyFile)
        }
    }

    private static func read(_ path: String) throws -> String {
        guard let data = try? Data(contentsOf: URL(fileURLWithPath: path)) else {
            throw StorageError(detail: "cannot read \(path)")
        }
        return String(decoding: data, as: UTF8.self)
    }

    private static func write(_ text: String, to path: String) throws {
        do {
            try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        } catch {
            throw StorageError(detail: "cannot write \(path)")
        }
    }
}
