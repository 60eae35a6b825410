package import CBOR

/// WebAuthn authenticator data as App Attest uses it (W3C WebAuthn section 6.1).
///
/// Layout: rpIdHash (32) ‖ flags (1) ‖ signCount (4, big-endian) ‖ [aaguid (16) ‖ credentialIdLength (2)
/// ‖ credentialId ‖ COSE key (CBOR)] ‖ [extensions (CBOR map)]. Newer attestations append an
/// extensions map (`apple_bundle_version_01`, ...) without setting the ED flag, so a trailing map is
/// accepted either way; anything after it is refused.
package struct AuthenticatorData: Sendable {
    package let rpIdHash: [UInt8]
    package let flags: UInt8
    package let counter: UInt32
    package let attestedCredential: AttestedCredential?
    package let extensions: [CBORMapEntry]?

    package struct AttestedCredential: Sendable {
        package let aaguid: [UInt8]
        package let credentialId: [UInt8]
        /// The credential public key as a COSE_Key map.
        package let publicKey: [CBORMapEntry]
    }

    /// Largest authenticator data accepted.
    static let maxBytes = 4096
    static let attestedDataFlag: UInt8 = 0x40

    /// Parses authenticator data; with `requireAttestedCredential` the attested credential data must
    /// be present (attestations) and everything after it must be one extensions map. Otherwise only the
    /// 37-byte header is read (assertions: Apple sets the AT flag there without attested data, and any
    /// further bytes are covered by the signature anyway).
    /// - Returns: nil when the bytes do not have this layout.
    package init?(_ bytes: [UInt8], requireAttestedCredential: Bool) {
        guard bytes.count >= 37, bytes.count <= Self.maxBytes else { return nil }
        rpIdHash = Array(bytes[0..<32])
        flags = bytes[32]
        counter = bytes[33..<37].reduce(0) { $0 << 8 | UInt32($1) }
        let decoder = CBORDecoder(maxDepth: 4, maxElements: 32, maxInputBytes: Self.maxBytes)
        var offset = 37
        guard requireAttestedCredential else {
            attestedCredential = nil
            extensions = nil
            return
        }
        if flags & Self.attestedDataFlag != 0 {
            guard bytes.count >= offset + 18 else { return nil }
            let aaguid = Array(bytes[offset..<offset + 16])
            let length = Int(bytes[offset + 16]) << 8 | Int(bytes[offset + 17])
            offset += 18
            guard length <= bytes.count - offset else { return nil }
            let credentialId = Array(bytes[offset..<offset + length])
            offset += length
            guard let key = try? decoder.decodePrefix(bytes[offset...]), let map = key.value.mapValue else {
                return nil
            }
            offset += key.length
            attestedCredential = AttestedCredential(aaguid: aaguid, credentialId: credentialId, publicKey: map)
        } else {
            return nil
        }
        if offset < bytes.count {
            guard let tail = try? decoder.decodePrefix(bytes[offset...]), let map = tail.value.mapValue,
                offset + tail.length == bytes.count
            else { return nil }
            extensions = map
        } else {
            extensions = nil
        }
    }
}
