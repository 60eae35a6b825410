package import WireContract

extension ClientData {
    /// Checks the document against the request actually received (the server's half of request binding).
    /// - Returns: nil when every field matches, otherwise the reason slug of the first mismatch.
    package func mismatch(challengeHeader: String, method: String, rawPath: String, body: [UInt8]) -> String? {
        if challenge != challengeHeader { return GateReason.challengeMismatch.slug }
        if self.method != method.uppercased() { return GateReason.methodMismatch.slug }
        if path != rawPath { return GateReason.pathMismatch.slug }
        if bodySHA256 != ClientData.bodySHA256(body) { return GateReason.bodyMismatch.slug }
        return nil
    }
}
