internal import Glibc

extension Bytes {
    /// The offset of the first `byte` in `buffer[start..<end]` (`end` nil: to the buffer's end), nil when
    /// there is none: `memchr`, so a long run costs vector compares, not a Swift loop per byte.
    package static func offset(
        of byte: UInt8,
        in buffer: UnsafeBufferPointer<UInt8>,
        from start: Int = 0,
        to end: Int? = nil
    ) -> Int? {
        let end = end ?? buffer.count
        guard let base = buffer.baseAddress, start < end else { return nil }
        return memchr(base + start, Int32(byte), end - start).map {
            UnsafePointer($0.assumingMemoryBound(to: UInt8.self)) - base
        }
    }

    /// The offset of the first LF or CR at or after `start`, or the buffer's end when there is none: where
    /// a line of the event-stream format ends (LF, CR or CRLF). Two `memchr`s: LF, then a CR before it.
    package static func lineEnd(in buffer: UnsafeBufferPointer<UInt8>, from start: Int) -> Int {
        let lineFeed = offset(of: 0x0A, in: buffer, from: start) ?? buffer.count
        return offset(of: 0x0D, in: buffer, from: start, to: lineFeed) ?? lineFeed
    }

    /// Whether `needle` occurs in `haystack` (false for an empty needle): `memchr` to each candidate first
    /// byte, then `memcmp` for the rest (glibc's `memmem` is not exported).
    package static func contains(_ haystack: UnsafeBufferPointer<UInt8>, _ needle: [UInt8]) -> Bool {
        guard let base = haystack.baseAddress, let first = needle.first, haystack.count >= needle.count else {
            return false
        }
        let last = haystack.count - needle.count
        var position = 0
        while let start = offset(of: first, in: haystack, from: position, to: last + 1) {
            let same = needle.withUnsafeBytes { key in memcmp(base + start, key.baseAddress!, key.count) == 0 }
            if same { return true }
            position = start + 1
        }
        return false
    }
}
