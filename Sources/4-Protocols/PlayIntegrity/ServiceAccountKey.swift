internal import AttestCore
package import Crypto

/// A Google service-account JSON key, parsed: who we are (`client_email`), which key (`private_key_id`,
/// the JWT's `kid`) and the RSA key itself. The PEM text is not kept once the key is loaded.
package struct ServiceAccountKey: Sendable {
    package let clientEmail: String
    package let privateKeyID: String
    /// `token_uri` from the file, for information; requests go to the configured `GOOGLE_TOKEN_ENDPOINT`.
    package let tokenURI: String?
    package let privateKey: RSAPrivateKey

    /// Parses service-account JSON.
    /// - Parameter json: the secret's bytes (at most 64 KiB); the caller wipes them afterwards.
    /// - Throws: `GoogleAuthError` with `play.auth.secret_malformed` (the detail names the field, never
    ///   its value).
    package init(json: [UInt8]) throws(GoogleAuthError) {
        guard json.count <= 64 * 1024 else { throw GoogleAuthError(.secretMalformed, detail: "larger than 64 KiB") }
        guard let document = try? JSONValue.parse(json), document.objectValue != nil else {
            throw GoogleAuthError(.secretMalformed, detail: "not a JSON object")
        }
        if let type = document["type"], type.stringValue != "service_account" {
            throw GoogleAuthError(.secretMalformed, detail: "type is not service_account")
        }
        func field(_ name: String) throws(GoogleAuthError) -> String {
            guard let value = document[name]?.stringValue, !value.isEmpty, value.utf8.count <= 16 * 1024 else {
                throw GoogleAuthError(.secretMalformed, detail: "missing or invalid \(name)")
            }
            return value
        }
        clientEmail = try field("client_email")
        privateKeyID = try field("private_key_id")
        tokenURI = document["token_uri"]?.stringValue
        var pem = Array(try field("private_key").utf8)
        defer { Zeroization.wipe(&pem) }
        do {
            privateKey = try RSAPrivateKey(pem: pem)
        } catch {
            throw GoogleAuthError(.secretMalformed, detail: "private_key: \(error.reason.slug)")
        }
    }
}
