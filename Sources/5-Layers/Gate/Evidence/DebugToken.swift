package import AttestCore
internal import Crypto
package import FoundationEssentials

/// An operator's debug token (`attestgate debug-token create`): layer-1 proof `debug` for simulators, emulators
/// and CI, which cannot attest (docs/clients.md, "Debug tokens"). Only its SHA-256 is stored, with its name, who
/// made it, when it expires, the features it may call and whether it was revoked.
package struct DebugToken: Sendable, Hashable {
    /// A bounded slug (`ios-ci`, `qa.pixel-8`): logged in place of the token.
    package let name: String
    /// Lower-case hex SHA-256 of the token text.
    package let hash: String
    package let createdBy: String
    package let createdAt: Int64
    package let expiresAt: Int64
    /// The features (routes) it may call; empty: every route.
    package let routes: [String]
    package var revokedAt: Int64?
    package var revokedBy: String?

    package init(
        name: String,
        hash: String,
        createdBy: String,
        createdAt: Int64,
        expiresAt: Int64,
        routes: [String],
        revokedAt: Int64? = nil,
        revokedBy: String? = nil
    ) {
        self.name = name
        self.hash = hash
        self.createdBy = createdBy
        self.createdAt = createdAt
        self.expiresAt = expiresAt
        self.routes = routes
        self.revokedAt = revokedAt
        self.revokedBy = revokedBy
    }

    /// `agdt_` and 43 base64url characters (32 random bytes): a prefix secret scanners can match.
    package static let prefix = "agdt_"
    package static let textLength = 48

    /// A new token's text from 32 random bytes.
    package static func mint(_ random: any RandomSource) -> String { prefix + Bytes.base64URL(random.bytes(32)) }

    /// The stored hash of `text`, or nil when `text` is not shaped as a token (never looked up).
    package static func hash(of text: String) -> String? {
        guard text.utf8.count == textLength, text.hasPrefix(prefix),
            let bytes = Bytes.fromBase64URL(text.dropFirst(prefix.count)), bytes.count == 32
        else { return nil }
        return Bytes.hex(Digest.sha256(Array(text.utf8)))
    }

    /// A name is a slug: 1-64 of `a-z 0-9 . _ -`, starting with a letter or digit.
    package static func isName(_ text: String) -> Bool {
        guard let first = text.utf8.first, (1...64).contains(text.utf8.count),
            (0x61...0x7A).contains(first) || (0x30...0x39).contains(first)
        else { return false }
        return text.utf8.allSatisfy {
            (0x61...0x7A).contains($0) || (0x30...0x39).contains($0) || [0x2E, 0x5F, 0x2D].contains($0)
        }
    }

    /// `active`, `expired` or `revoked` at `now` (Unix seconds).
    package func state(at now: Int64) -> String {
        if revokedAt != nil { return "revoked" }
        return now >= expiresAt ? "expired" : "active"
    }
}

/// Where debug tokens are kept (`DynamoDebugTokenStore`).
package protocol DebugTokenStore: Sendable {
    /// The token whose hash is `hash`; nil when none.
    /// - Throws: `StoreError`.
    func token(hash: String) async throws -> DebugToken?
}

/// Layer 1 for a call carrying `X-Debug-Token` on a deployment with `DEBUG_TOKENS=on`.
package struct DebugTokenCheck: Sendable {
    let store: any DebugTokenStore

    package init(store: any DebugTokenStore) { self.store = store }

    /// The evidence, and the token's name when it holds (the call is then metered as that token).
    ///
    /// Anything but a stored, unexpired, unrevoked token allowed on `feature` is rejected, a store failure
    /// included: a token that cannot be checked proves nothing, so an outage never admits through this header.
    package func evaluate(_ text: String, feature: String, now: Date) async -> (GateEvidence, name: String?) {
        guard let hash = DebugToken.hash(of: text) else {
            return (.rejected(proof: .debug, reason: "debug.malformed"), nil)
        }
        let token: DebugToken?
        do {
            token = try await store.token(hash: hash)
        } catch {
            return (.rejected(proof: .debug, reason: "debug.store_failed"), nil)
        }
        guard let token else { return (.rejected(proof: .debug, reason: "debug.unknown"), nil) }
        switch token.state(at: Int64(now.timeIntervalSince1970)) {
        case "revoked": return (.rejected(proof: .debug, reason: "debug.revoked"), nil)
        case "expired": return (.rejected(proof: .debug, reason: "debug.expired"), nil)
        default: break
        }
        guard token.routes.isEmpty || token.routes.contains(feature) else {
            return (.rejected(proof: .debug, reason: "debug.route_not_allowed"), nil)
        }
        return (.genuine(proof: .debug), token.name)
    }
}
