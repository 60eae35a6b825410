internal import Crypto
internal import FoundationEssentials

extension AppAttestReceipt {
    /// Field numbers from Apple's "Assessing fraud risk".
    private enum Field: Int {
        case appId = 2
        case attestedCertificate = 3
        case clientHash = 4
        case token = 5
        case kind = 6
        case environment = 7
        case creationTime = 12
        case riskMetric = 17
        case notBefore = 19
        case expirationTime = 21
    }

    /// Reads the attribute SET (DER, long-form lengths allowed, everything consumed).
    init(bytes: [UInt8], content: [UInt8]) throws(AppAttestError) {
        func malformed(_ detail: String) -> AppAttestError { AppAttestError(.receiptMalformed, detail: detail) }
        var outer = DERReader(content[...], allowLongForm: true)
        guard let set = outer.next(tag: 0x31), outer.isAtEnd else { throw malformed("payload is not one SET") }
        var fields: [Int: [UInt8]] = [:]
        var reader = DERReader(set, allowLongForm: true)
        while !reader.isAtEnd {
            guard let sequence = reader.next(tag: 0x30) else { throw malformed("attribute is not a SEQUENCE") }
            var attribute = DERReader(sequence, allowLongForm: true)
            guard let number = attribute.next(tag: 0x02), number.count == 1 || number.count == 2,
                attribute.next(tag: 0x02) != nil, let value = attribute.next(tag: 0x04), attribute.isAtEnd
            else { throw malformed("attribute shape") }
            let field = number.reduce(0) { $0 << 8 | Int($1) }
            guard fields[field] == nil else { throw malformed("field \(field) twice") }
            fields[field] = Array(value)
        }
        func text(_ field: Field) -> String? {
            fields[field.rawValue].flatMap { String(validating: $0, as: UTF8.self) }
        }
        func date(_ field: Field) -> Date? { text(field).flatMap(Timestamp.parse) }
        guard let appId = text(.appId), let certificateDER = fields[Field.attestedCertificate.rawValue],
            let clientHash = fields[Field.clientHash.rawValue], let token = text(.token),
            let kind = text(.kind).flatMap(Kind.init(rawValue:)), let created = date(.creationTime),
            let expires = date(.expirationTime)
        else { throw malformed("a required field is missing or unreadable") }
        self.bytes = bytes
        self.appId = appId
        self.attestedCertificateDER = certificateDER
        self.clientHash = clientHash
        self.token = token
        self.kind = kind
        self.environment = text(.environment)
        self.creationTime = created
        self.riskMetric = text(.riskMetric).flatMap { Int($0) }
        self.notBefore = date(.notBefore)
        self.expirationTime = expires
    }
}
