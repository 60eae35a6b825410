/// The guest identifier from `X-Device-ID`: a UUID the app generates once and keeps in the Keychain.
package enum DeviceID {
    /// The canonical (lower-case) form of `header`, or nil when it is not a UUID (8-4-4-4-12 hex digits).
    ///
    /// Lower-casing matters: UUIDs are case-insensitive, and without it one ID would yield 2^32
    /// spellings, each with a fresh allowance.
    package static func canonical(_ header: String?) -> String? {
        guard let header, header.utf8.count == 36 else { return nil }
        var out = [UInt8]()
        out.reserveCapacity(36)
        for (index, byte) in header.utf8.enumerated() {
            if [8, 13, 18, 23].contains(index) {
                guard byte == UInt8(ascii: "-") else { return nil }
                out.append(byte)
                continue
            }
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "f"): out.append(byte)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): out.append(byte + 32)
            default: return nil
            }
        }
        return String(decoding: out, as: UTF8.self)
    }
}
