internal import AttestCore
internal import CBOR
package import Crypto
package import FoundationEssentials

/// A genuine App Attest device in software: the reference client for app authors and the device
/// that tests and local runs use.
///
/// It follows Apple's flow. `attest` does what `DCAppAttestService.attestKey(_:clientDataHash:)`
/// returns: `{fmt: "apple-appattest", attStmt: {x5c: [leaf, intermediate], receipt}, authData}`, where
/// the leaf carries `nonce = SHA-256(authData ‖ clientDataHash)` in extension 1.2.840.113635.100.8.2.
/// `assert` does what `generateAssertion(_:clientDataHash:)` returns: `{signature, authenticatorData}`,
/// signing `nonce = SHA-256(authenticatorData ‖ clientDataHash)` with ECDSA-SHA256.
///
/// How to build `clientDataHash` is the app's contract with the server: in challenge binding it is
/// `SHA-256(challenge bytes)`; in request binding `SHA-256(client-data JSON bytes)` (docs/api.md §2).
package struct SimulatedDevice: Sendable {
    package let teamId: String
    package let bundleId: String
    package let environment: Environment
    package let authority: SimulatedAppleCA
    /// The physical iPhone this app runs on: every device ID the app mints on it, each with its own App
    /// Attest key, produces DeviceCheck tokens of this one device (`deviceCheckToken()`).
    package let physicalID: String

    /// Development keys carry the aaguid `appattestdevelop` and `sandbox` receipts.
    package enum Environment: Sendable {
        case production, development

        var aaguid: [UInt8] {
            switch self {
            case .production: Array("appattest".utf8) + [UInt8](repeating: 0, count: 7)
            case .development: Array("appattestdevelop".utf8)
            }
        }
    }

    /// - Parameter physicalID: the physical device (a fresh random one by default: a phone of its own).
    package init(
        teamId: String,
        bundleId: String,
        environment: Environment,
        authority: SimulatedAppleCA,
        physicalID: String = Bytes.hex(SecureRandom().bytes(8))
    ) {
        self.teamId = teamId
        self.bundleId = bundleId
        self.environment = environment
        self.authority = authority
        self.physicalID = physicalID
    }

    /// What `DCDevice.current.generateToken()` returns: a fresh, ephemeral token (base64) for this physical
    /// device. Apple's are opaque; these carry `simdc1:<physicalID>:<random>` so that
    /// `local-harness/fake_apple.py` knows the device without being told.
    package func deviceCheckToken() -> String {
        Bytes.base64(Array("simdc1:\(physicalID):".utf8) + SecureRandom().bytes(48))
    }

    /// `TEAMID.bundle.id`.
    package var appId: String { "\(teamId).\(bundleId)" }

    /// Attests `key` for `clientDataHash` at `now`.
    /// - Returns: the CBOR attestation object (send it base64-encoded with the key id).
    /// - Throws: `CryptoError` if OpenSSL fails.
    package func attest(
        _ key: SimulatedAppAttestKey,
        clientDataHash: [UInt8],
        now: Date,
        options: AttestationOptions = .genuine
    ) throws(CryptoError) -> [UInt8] {
        let authData = attestationAuthData(key, options)
        let nonce = Digest.sha256(parts: [authData, clientDataHash])
        let leaf = try issueLeaf(for: key, nonce: nonce, now: now, options: options)
        let x5c: [Certificate] =
            switch options.chain {
            case .leafAndIntermediate: [leaf, authority.intermediate]
            case .leafOnly: [leaf]
            case .leafIntermediateAndRoot: [leaf, authority.intermediate, authority.root]
            }
        var statement = [CBORMapEntry(.text("x5c"), .array(x5c.map { .bytes($0.derRepresentation) }))]
        if !options.omitReceipt {
            let receipt = try attestReceipt(
                leaf: leaf,
                clientDataHash: clientDataHash,
                now: now,
                options: options.receipt
            )
            statement.append(CBORMapEntry(.text("receipt"), .bytes(receipt)))
        }
        return CBOREncoder.encode(
            .map([
                CBORMapEntry(.text("fmt"), .text("apple-appattest")),
                CBORMapEntry(.text("attStmt"), .map(statement)),
                CBORMapEntry(.text("authData"), .bytes(authData)),
            ])
        )
    }

    /// Signs an assertion for `clientDataHash`, bumping the key's counter.
    /// - Returns: the CBOR assertion (send it base64-encoded in `X-App-Attest-Assertion`).
    /// - Throws: `CryptoError` if OpenSSL fails.
    package func assert(_ key: inout SimulatedAppAttestKey, clientDataHash: [UInt8]) throws(CryptoError) -> [UInt8] {
        let counter = key.nextCounter()
        return try assertion(key, counter: counter, clientDataHash: clientDataHash)
    }

    /// Signs an assertion with an explicit counter and App ID (negative tests: replays, other apps).
    /// - Throws: `CryptoError` if OpenSSL fails.
    package func assertion(
        _ key: SimulatedAppAttestKey,
        counter: UInt32,
        clientDataHash: [UInt8],
        appId: String? = nil
    ) throws(CryptoError) -> [UInt8] {
        // Apple sets the AT flag (0x40) in assertions too, without attested credential data.
        let authData = Digest.sha256(Array((appId ?? self.appId).utf8)) + [0x40] + bigEndian(counter)
        let nonce = Digest.sha256(parts: [authData, clientDataHash])
        let signature = try key.privateKey.signature(for: nonce)
        return CBOREncoder.encode(
            .map([
                CBORMapEntry(.text("signature"), .bytes(signature.derRepresentation)),
                CBORMapEntry(.text("authenticatorData"), .bytes(authData)),
            ])
        )
    }

    func bigEndian(_ value: UInt32) -> [UInt8] {
        (0..<4).reversed().map { UInt8(truncatingIfNeeded: value >> ($0 * 8)) }
    }
}
