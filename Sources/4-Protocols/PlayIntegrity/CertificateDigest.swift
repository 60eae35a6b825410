internal import AttestCore

/// Signing-certificate SHA-256 digests (`ANDROID_CERT_SHA256`, `appIntegrity.certificateSha256Digest`)
/// in one spelling, so what an operator copies from Play Console compares equal to what Play Integrity
/// reports.
///
/// Play Console shows the fingerprint as colon-separated hex (`F7:95:2B:…`, 32 bytes); Play Integrity
/// returns base64url of the same 32 bytes. Both, plain hex and standard base64 (padded or not) become
/// base64url without padding. A value that is none of these is kept as it is and compared exactly.
package enum CertificateDigest {
    /// The canonical spelling of `text` (surrounding spaces ignored); nil for colon-separated text that
    /// is not 32 hex bytes (a SHA-1 fingerprint copied by mistake has 20).
    package static func normalized(_ text: String) -> String? {
        let trimmed = String(text.drop { $0 == " " }.reversed().drop { $0 == " " }.reversed())
        if trimmed.contains(":") {
            let groups = trimmed.split(separator: ":", omittingEmptySubsequences: false)
            guard groups.count == 32, groups.allSatisfy({ $0.count == 2 }),
                let bytes = Bytes.fromHex(groups.joined())
            else { return nil }
            return Bytes.base64URL(bytes)
        }
        if trimmed.utf8.count == 64, let bytes = Bytes.fromHex(trimmed) { return Bytes.base64URL(bytes) }
        if let bytes = Bytes.fromBase64URL(trimmed) ?? standardBase64(trimmed), bytes.count == 32 {
            return Bytes.base64URL(bytes)
        }
        return trimmed
    }

    private static func standardBase64(_ text: String) -> [UInt8]? {
        guard !text.contains("-"), !text.contains("_") else { return nil }
        var padded = text
        while padded.hasSuffix("=") { padded.removeLast() }
        padded += String(repeating: "=", count: (4 - padded.utf8.count % 4) % 4)
        return Bytes.fromBase64(padded)
    }
}
