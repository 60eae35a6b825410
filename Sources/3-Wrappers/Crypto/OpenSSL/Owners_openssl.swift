internal import COpenSSL

// One Swift owner per C object. Each class is immutable after init and frees its pointer in deinit;
// OpenSSL allows concurrent read-only use of keys and certificates, hence `@unchecked Sendable`.

/// Owns an `EVP_PKEY` (public or private key).
final class EVPKeyOwner: @unchecked Sendable {
    let pointer: OpaquePointer

    /// Adopts `pointer`; the caller must not free it afterwards.
    init(unsafeTakingOwnership pointer: OpaquePointer) { self.pointer = pointer }

    deinit { EVP_PKEY_free(pointer) }
}

/// Owns an `X509` certificate.
final class X509Owner: @unchecked Sendable {
    let pointer: OpaquePointer

    /// Adopts `pointer`; the caller must not free it afterwards.
    init(unsafeTakingOwnership pointer: OpaquePointer) { self.pointer = pointer }

    deinit { X509_free(pointer) }
}
