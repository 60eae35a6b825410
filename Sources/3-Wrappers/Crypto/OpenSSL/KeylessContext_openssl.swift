internal import COpenSSL

/// An OpenSSL library context holding only the built-in `null` provider.
///
/// OpenSSL 3.0 decodes a certificate's subject key while parsing it, through its decoder framework:
/// about 110 µs a certificate on our hosts, a sixth of a P-384 verification. A certificate parsed in this
/// context keeps its SubjectPublicKeyInfo as bytes (the decode finds no decoder, which OpenSSL treats as
/// "decode later"). Nothing is ever fetched from this context: signatures over such a certificate are
/// verified with keys and algorithms of the default context, and its key is built from the SPKI fields.
final class KeylessContext: @unchecked Sendable {
    let pointer: OpaquePointer

    private init?() {
        guard let context = OSSL_LIB_CTX_new() else { return nil }
        // Loading any provider stops the context from loading `default` on its first fetch.
        guard OSSL_PROVIDER_load(context, "null") != nil else {
            OSSL_LIB_CTX_free(context)
            return nil
        }
        pointer = context
    }

    /// Created on first use and kept for the life of the process (the provider stays loaded with it).
    static let shared: KeylessContext? = KeylessContext()
}
