/// CRC-32 (IEEE 802.3, reflected, polynomial 0xEDB88320), as DynamoDB puts in `x-amz-crc32`.
package enum CRC32 {
    private static let table: [UInt32] = (0..<256).map { index in
        var value = UInt32(index)
        for _ in 0..<8 { value = value & 1 == 1 ? 0xEDB8_8320 ^ (value >> 1) : value >> 1 }
        return value
    }

    /// The checksum of `bytes`.
    package static func checksum(_ bytes: some Sequence<UInt8>) -> UInt32 {
        if let crc = bytes.withContiguousStorageIfAvailable({ checksum(contiguous: $0) }) { return crc }
        return Array(bytes).withUnsafeBufferPointer { checksum(contiguous: $0) }
    }

    private static func checksum(contiguous bytes: UnsafeBufferPointer<UInt8>) -> UInt32 {
        table.withUnsafeBufferPointer { table in
            var crc: UInt32 = 0xFFFF_FFFF
            for byte in bytes { crc = table[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8) }
            return crc ^ 0xFFFF_FFFF
        }
    }

    /// True when `header` is absent, or is the decimal checksum of `body`. A header that is present but
    /// not a number is a mismatch: something between us and the service changed the response.
    package static func matches(header: String?, body: [UInt8]) -> Bool {
        guard let header else { return true }
        // Leading spaces only (HTTP's optional whitespace, if a proxy kept it), then a plain decimal.
        let spaces = header.utf8.prefix { $0 == UInt8(ascii: " ") }.count
        guard let expected = UInt32(String(decoding: header.utf8.dropFirst(spaces), as: UTF8.self)) else {
            return false
        }
        return expected == checksum(body)
    }
}
