internal import COpenSSL
internal import Synchronization

/// The `EVP_PKEY` behind an `ECPublicKey`, made on first use.
///
/// Making one from a point costs OpenSSL 3.0 about 20 µs (a fresh curve group and a key-management
/// import), a few percent of an attestation, and key registration never verifies with the key: it only
/// stores it. The point was checked on the curve when the `ECPublicKey` was made, so making the key
/// later cannot fail for that reason.
final class LazyEVPKey: Sendable {
    /// What to make the key from; nil when OpenSSL made it already.
    private let source: (curve: ECPublicKey.Curve, point: [UInt8])?
    private let made: Mutex<EVPKeyOwner?>

    /// A key whose point is already known to be on `curve`.
    init(curve: ECPublicKey.Curve, point: [UInt8]) {
        self.source = (curve, point)
        self.made = Mutex(nil)
    }

    /// A key OpenSSL already made (parsed from DER by OpenSSL).
    init(built owner: EVPKeyOwner) {
        self.source = nil
        self.made = Mutex(owner)
    }

    /// The key, made once; nil only if OpenSSL fails to make it (allocation).
    func owner() -> EVPKeyOwner? {
        made.withLock { made in
            if made == nil, let source { made = Self.make(curve: source.curve, point: source.point) }
            return made
        }
    }

    /// `EVP_PKEY_PUBLIC_KEY`, a compound macro Swift does not import: domain and other parameters, public key.
    private static let publicKeySelection = Int32(
        OSSL_KEYMGMT_SELECT_DOMAIN_PARAMETERS | OSSL_KEYMGMT_SELECT_OTHER_PARAMETERS | OSSL_KEYMGMT_SELECT_PUBLIC_KEY
    )

    private static func make(curve: ECPublicKey.Curve, point: [UInt8]) -> EVPKeyOwner? {
        ERR_clear_error()
        defer { ERR_clear_error() }
        guard let context = EVP_PKEY_CTX_new_from_name(nil, "EC", nil) else { return nil }
        defer { EVP_PKEY_CTX_free(context) }
        var key: OpaquePointer? = nil
        // OSSL_PARAM keeps pointers to its key names and values: all of them live through the call.
        let status = "group".withCString { groupKey in
            "pub".withCString { pointKey in
                curve.rawValue.withCString { group in
                    point.withUnsafeBufferPointer { bytes in
                        var parameters = [
                            OSSL_PARAM_construct_utf8_string(groupKey, UnsafeMutablePointer(mutating: group), 0),
                            OSSL_PARAM_construct_octet_string(
                                pointKey,
                                UnsafeMutableRawPointer(mutating: bytes.baseAddress),
                                bytes.count
                            ),
                            OSSL_PARAM_construct_end(),
                        ]
                        guard EVP_PKEY_fromdata_init(context) == 1 else { return Int32(0) }
                        return EVP_PKEY_fromdata(context, &key, publicKeySelection, &parameters)
                    }
                }
            }
        }
        guard status == 1, let key else { return nil }
        return EVPKeyOwner(unsafeTakingOwnership: key)
    }
}

/// A named curve's group, made once per process and only read afterwards (OpenSSL allows concurrent
/// read-only use), to check that a point lies on the curve.
final class CurveGroup: @unchecked Sendable {
    private let pointer: OpaquePointer

    private init?(nid: Int32) {
        guard let group = EC_GROUP_new_by_curve_name(nid) else { return nil }
        pointer = group
    }

    private static let p256 = CurveGroup(nid: NID_X9_62_prime256v1)
    private static let p384 = CurveGroup(nid: NID_secp384r1)

    static func of(_ curve: ECPublicKey.Curve) -> CurveGroup? { curve == .p256 ? p256 : p384 }

    /// Whether the X9.62 encoding decodes to a point on the curve (OpenSSL checks the curve equation).
    func contains(_ encoded: [UInt8]) -> Bool {
        ERR_clear_error()
        defer { ERR_clear_error() }
        guard let point = EC_POINT_new(pointer) else { return false }
        defer { EC_POINT_free(point) }
        return encoded.withUnsafeBufferPointer { bytes in
            EC_POINT_oct2point(pointer, point, bytes.baseAddress, bytes.count, nil) == 1
        }
    }
}
