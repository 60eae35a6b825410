package import AttestCore

/// The fields of a decoded integrity token that the checks read (`tokenPayloadExternal`).
///
/// Every field is optional because Google omits whatever a token did not carry (a replayed token decodes
/// with its verdicts cleared; a classic token has `nonce` instead of `requestHash`). A field of the wrong
/// JSON type reads as missing. Unknown fields and enum values are ignored, never an error. One exception:
/// `recentDeviceActivity`, where missing means "not evaluated" and passes, so a value of the wrong type or
/// an unknown level is kept as `.unrecognized` and refused by `DeviceActivityPolicy`. `deviceRecall` is read
/// the same way (a shape we do not know is `.unrecognized`, never a clear bit), but it never refuses a
/// verdict: it only decides a device tier (docs/playintegrity.md "Device recall").
package struct IntegrityPayload: Sendable, Hashable {
    package var requestPackageName: String?
    package var requestHash: String?
    package var nonce: String?
    /// `requestDetails.timestampMillis`: an int64, which proto3 JSON sends as a string.
    package var timestampMillis: Int64?
    package var appRecognitionVerdict: String?
    package var appPackageName: String?
    package var certificateSha256Digest: [String]?
    package var deviceRecognitionVerdict: [String]?
    package var appLicensingVerdict: String?
    /// `deviceIntegrity.recentDeviceActivity.deviceActivityLevel`; absent reads as `UNEVALUATED`, but a
    /// value of the wrong type or an unknown level is `.unrecognized` (missing would read as a pass here).
    package var deviceActivity: DeviceActivityReading
    /// `deviceIntegrity.deviceRecall` (device recall's three bits); `.absent` when the verdict has none.
    package var deviceRecall: DeviceRecallReading
    /// True when `testingDetails` is present (a Play Console test response), whatever it says.
    package var hasTestingDetails: Bool
    package var isTestingResponse: Bool?

    package init() {
        hasTestingDetails = false
        deviceActivity = .level(.unevaluated)
        deviceRecall = .absent
    }

    /// Reads the body of a `200` from `decodeIntegrityToken`.
    /// - Throws: `PlayIntegrityError` `play.payload_missing` when `tokenPayloadExternal` is not an object.
    package init(decodeResponse document: JSONValue) throws(PlayIntegrityError) {
        guard let payload = document["tokenPayloadExternal"], payload.objectValue != nil else {
            throw PlayIntegrityError(.payloadMissing)
        }
        self.init(payload: payload)
    }

    /// Reads the inner payload object.
    package init(payload: JSONValue) {
        let request = payload["requestDetails"]
        let app = payload["appIntegrity"]
        requestPackageName = request?["requestPackageName"]?.stringValue
        requestHash = request?["requestHash"]?.stringValue
        nonce = request?["nonce"]?.stringValue
        timestampMillis = request?["timestampMillis"].flatMap(Self.int64)
        appRecognitionVerdict = app?["appRecognitionVerdict"]?.stringValue
        appPackageName = app?["packageName"]?.stringValue
        certificateSha256Digest = app?["certificateSha256Digest"].flatMap(Self.strings)
        deviceRecognitionVerdict = payload["deviceIntegrity"]?["deviceRecognitionVerdict"].flatMap(Self.strings)
        appLicensingVerdict = payload["accountDetails"]?["appLicensingVerdict"]?.stringValue
        deviceActivity = Self.deviceActivity(payload["deviceIntegrity"]?["recentDeviceActivity"])
        deviceRecall = DeviceRecallReading(payload["deviceIntegrity"]?["deviceRecall"])
        let testing = payload["testingDetails"]
        hasTestingDetails = testing != nil && testing != .null
        isTestingResponse = testing?["isTestingResponse"]?.boolValue
    }

    /// `recentDeviceActivity`: absent or `null` (object or level) is `UNEVALUATED`; anything else must be
    /// an object whose `deviceActivityLevel` is one of Google's levels.
    private static func deviceActivity(_ value: JSONValue?) -> DeviceActivityReading {
        guard let value, value != .null else { return .level(.unevaluated) }
        guard value.objectValue != nil else { return .unrecognized }
        guard let level = value["deviceActivityLevel"], level != .null else { return .level(.unevaluated) }
        guard let text = level.stringValue, let known = DeviceActivityLevel(verdict: text) else {
            return .unrecognized
        }
        return .level(known)
    }

    /// An int64 sent as a decimal string (or, leniently, as a JSON integer).
    private static func int64(_ value: JSONValue) -> Int64? {
        switch value {
        case .string(let text):
            guard !text.isEmpty, text.utf8.count <= 19, text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else {
                return nil
            }
            return Int64(text)
        case .int(let number): return number
        default: return nil
        }
    }

    /// The string elements of an array; nil when the value is not an array.
    private static func strings(_ value: JSONValue) -> [String]? {
        value.arrayValue?.compactMap(\.stringValue)
    }
}
