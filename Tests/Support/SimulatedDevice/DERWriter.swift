/// Just enough DER encoding to build Apple-shaped structures: the nonce extension and receipt payloads.
enum DERWriter {
    /// Tag ‖ definite length (short form below 128, long form above) ‖ value.
    static func element(_ tag: UInt8, _ value: [UInt8]) -> [UInt8] {
        [tag] + length(value.count) + value
    }

    static func length(_ count: Int) -> [UInt8] {
        if count < 0x80 { return [UInt8(count)] }
        var bytes: [UInt8] = []
        var rest = count
        while rest > 0 {
            bytes.insert(UInt8(rest & 0xff), at: 0)
            rest >>= 8
        }
        return [0x80 | UInt8(bytes.count)] + bytes
    }

    static func integer(_ value: Int) -> [UInt8] {
        precondition(value >= 0 && value < 0x8000)
        return value < 0x80 ? element(0x02, [UInt8(value)]) : element(0x02, [UInt8(value >> 8), UInt8(value & 0xff)])
    }

    static func sequence(_ parts: [[UInt8]]) -> [UInt8] { element(0x30, parts.flatMap { $0 }) }
    static func set(_ parts: [[UInt8]]) -> [UInt8] { element(0x31, parts.flatMap { $0 }) }
    static func octets(_ bytes: [UInt8]) -> [UInt8] { element(0x04, bytes) }
}
