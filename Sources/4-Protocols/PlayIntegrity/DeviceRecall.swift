package import AttestCore

/// `deviceIntegrity.deviceRecall`: three bits Google keeps per physical device for the apps of one Play
/// developer account, across reinstalls and factory resets (device recall, an early-access feature;
/// docs/playintegrity.md "Device recall"). We use `bitFirst` as "this device has had its first free tier".
package struct DeviceRecall: Sendable, Hashable {
    package var bitFirst: Bool
    package var bitSecond: Bool
    package var bitThird: Bool
    /// When each bit was last written, as Google reports it (only for a bit that is set).
    package var writeDates: WriteDates

    /// `writeDates`: the month (UTC, `YYYYMM` such as 202402) each set bit was written in.
    package struct WriteDates: Sendable, Hashable {
        package var first: Int?
        package var second: Int?
        package var third: Int?

        package init(first: Int? = nil, second: Int? = nil, third: Int? = nil) {
            self.first = first
            self.second = second
            self.third = third
        }
    }

    package init(bitFirst: Bool, bitSecond: Bool = false, bitThird: Bool = false, writeDates: WriteDates = .init()) {
        self.bitFirst = bitFirst
        self.bitSecond = bitSecond
        self.bitThird = bitThird
        self.writeDates = writeDates
    }
}

/// What a decoded payload says about device recall.
package enum DeviceRecallReading: Sendable, Hashable {
    /// No `deviceRecall` in the verdict (recall not turned on for the app, or not given for this token).
    case absent
    /// The documented shape, read.
    case values(DeviceRecall)
    /// Present but not the documented shape (a bit that is not a boolean, `values` not an object): never
    /// read as a clear bit, because a clear bit gives a free tier.
    case unrecognized

    /// The recall values, when the verdict carried readable ones.
    package var recall: DeviceRecall? {
        if case .values(let recall) = self { return recall }
        return nil
    }

    /// Reads `deviceIntegrity.deviceRecall` (nil or `null`: absent).
    ///
    /// Google's JSON is proto3's: a `false` bit and an unset date are left out, so a missing bit reads as
    /// clear, but only inside a `values` object that is there. `writeDates` is informational: a date that is
    /// not a `YYYYMM` number is dropped, never an error. Reads a fixed number of fields whatever the input.
    package init(_ value: JSONValue?) {
        guard let value, value != .null else {
            self = .absent
            return
        }
        guard value.objectValue != nil, let values = value["values"], values.objectValue != nil else {
            self = .unrecognized
            return
        }
        var bits: [Bool] = []
        for name in ["bitFirst", "bitSecond", "bitThird"] {
            switch values[name] {
            case nil, .null?: bits.append(false)
            case .bool(let bit)?: bits.append(bit)
            default:
                self = .unrecognized
                return
            }
        }
        let dates = value["writeDates"]
        self = .values(
            DeviceRecall(
                bitFirst: bits[0],
                bitSecond: bits[1],
                bitThird: bits[2],
                writeDates: DeviceRecall.WriteDates(
                    first: Self.month(dates?["yyyymmFirst"]),
                    second: Self.month(dates?["yyyymmSecond"]),
                    third: Self.month(dates?["yyyymmThird"])
                )
            )
        )
    }

    /// A `YYYYMM` month (years 2000 to 9999), as a JSON integer or (proto3 int64 style) a decimal string.
    static func month(_ value: JSONValue?) -> Int? {
        let number: Int64?
        switch value {
        case .int(let int)?: number = int
        case .string(let text)?
        where (1...6).contains(text.utf8.count) && text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }):
            number = Int64(text)
        default: number = nil
        }
        guard let number, (200_001...999_912).contains(number), (1...12).contains(number % 100) else { return nil }
        return Int(number)
    }
}
