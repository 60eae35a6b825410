package import WireContract

extension ClientData {
    /// Checks the document against the request actually received (the server's half of request binding).
    /// - Returns: nil when every field matches, otherwise the reason slug of the first mismatch.
    package func mismatch(challengeHeader: String, method: String, rawPath: String, body: [UInt8]) -> String? {
        if challenge != challengeHeader { return "binding.challenge_mismatch" }
        if self.method != method.uppercased() { return "binding.method_mismatch" }
        if path != rawPath { return "binding.path_mismatch" }
        if bodySHA256 != ClientData.bodySHA256(body) { return "binding.body_mismatch" }
        return nil
    }
}
