internal import AttestCore

/// PEM armour (RFC 7468): one labelled base64 block.
package enum PEM {
    /// The DER inside the first block whose label is one of `labels`.
    /// - Throws: `crypto.der_malformed` when there is no such block or its base64 is bad.
    package static func decode(_ text: String, labels: [String]) throws(CryptoError) -> [UInt8] {
        for label in labels {
            let begin = "-----BEGIN \(label)-----"
            let end = "-----END \(label)-----"
            guard let start = text.firstRange(of: begin),
                let stop = text[start.upperBound...].firstRange(of: end)
            else { continue }
            let body = text[start.upperBound..<stop.lowerBound].filter { !$0.isWhitespace }
            guard let der = Bytes.fromBase64(body), !der.isEmpty else {
                throw CryptoError(.derMalformed, detail: "bad base64 in PEM \(label)")
            }
            return der
        }
        throw CryptoError(.derMalformed, detail: "no PEM block labelled \(labels.joined(separator: "/"))")
    }

    /// `der` armoured under `label`, 64 characters a line.
    package static func encode(_ der: [UInt8], label: String) -> String {
        let base64 = Array(Bytes.base64(der))
        var lines = ["-----BEGIN \(label)-----"]
        var index = 0
        while index < base64.count {
            lines.append(String(base64[index..<min(index + 64, base64.count)]))
            index += 64
        }
        lines.append("-----END \(label)-----")
        return lines.joined(separator: "\n") + "\n"
    }
}
