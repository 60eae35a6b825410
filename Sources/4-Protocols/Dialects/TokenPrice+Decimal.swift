package import AttestCore

extension TokenPrice {
    /// Parses a non-negative decimal number of US dollars, at most six decimal places (a micro-dollar),
    /// with an optional exponent (`1.5`, `0.075`, `3`, `2.5e-1`); `nil` for anything else.
    package init?(usd text: some StringProtocol) {
        guard let micro = Self.microUnits(Array(text.utf8)) else { return nil }
        self.init(microUSDPerMTok: micro)
    }

    /// Reads a `prices` field: a JSON number (integer or decimal), read through its shortest decimal text
    /// so `0.15` is exactly 150,000 micro-dollars.
    package init?(json: JSONValue) {
        switch json {
        case .int(let dollars):
            let (micro, overflow) = dollars.multipliedReportingOverflow(by: 1_000_000)
            guard !overflow else { return nil }
            self.init(microUSDPerMTok: micro)
        case .double(let dollars) where dollars.isFinite:
            self.init(usd: String(dollars))
        default:
            return nil
        }
    }

    /// `digits[.digits][(e|E)[+|-]digits]` scaled to millionths; `nil` past six decimals or a huge value.
    private static func microUnits(_ bytes: [UInt8]) -> Int64? {
        var index = 0
        var mantissa: [UInt8] = []
        var fractionDigits = 0
        var sawPoint = false
        while index < bytes.count, bytes[index] == UInt8(ascii: ".") || isDigit(bytes[index]) {
            if bytes[index] == UInt8(ascii: ".") {
                guard !sawPoint else { return nil }
                sawPoint = true
            } else {
                mantissa.append(bytes[index] - UInt8(ascii: "0"))
                if sawPoint { fractionDigits += 1 }
            }
            index += 1
        }
        guard !mantissa.isEmpty, mantissa.count <= 40 else { return nil }
        var exponent = 0
        if index < bytes.count {
            guard bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") else { return nil }
            index += 1
            var negative = false
            if index < bytes.count, bytes[index] == UInt8(ascii: "-") || bytes[index] == UInt8(ascii: "+") {
                negative = bytes[index] == UInt8(ascii: "-")
                index += 1
            }
            let start = index
            while index < bytes.count, isDigit(bytes[index]), index - start < 4 {
                exponent = exponent * 10 + Int(bytes[index] - UInt8(ascii: "0"))
                index += 1
            }
            guard index > start, index == bytes.count else { return nil }
            if negative { exponent = -exponent }
        }
        // value = mantissa × 10^(exponent − fractionDigits); in millionths: × 10^(shift).
        var shift = exponent - fractionDigits + 6
        var digits = mantissa
        while shift < 0 {
            guard let last = digits.last, last == 0 else { return nil }  // finer than a micro-dollar
            digits.removeLast()
            shift += 1
        }
        var value: Int64 = 0
        for digit in digits + [UInt8](repeating: 0, count: min(shift, 40)) {
            let (times10, overflow1) = value.multipliedReportingOverflow(by: 10)
            let (next, overflow2) = times10.addingReportingOverflow(Int64(digit))
            guard !overflow1, !overflow2 else { return nil }
            value = next
        }
        return value
    }

    private static func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }
}

extension ModelPrice {
    /// Reads one model's entry of a route's `prices`: `{"inputPerMTok":USD,"outputPerMTok":USD}` and any of the
    /// classes' keys (`TokenClass.priceKey`); `nil` for a missing, unknown or unreadable member.
    /// A `null` class is absent (Terraform writes an unset optional attribute as `null`).
    package init?(json: JSONValue) {
        guard case .object(let all) = json else { return nil }
        let members = all.filter { $0.value != .null }
        guard let input = members["inputPerMTok"].flatMap(TokenPrice.init(json:)),
            let output = members["outputPerMTok"].flatMap(TokenPrice.init(json:))
        else { return nil }
        var classes: [TokenClass: TokenPrice] = [:]
        for kind in TokenClass.allCases {
            guard let value = members[kind.priceKey] else { continue }
            guard let price = TokenPrice(json: value) else { return nil }
            classes[kind] = price
        }
        guard members.count == 2 + classes.count else { return nil }
        self.init(input: input, output: output, classes: classes)
    }
}
