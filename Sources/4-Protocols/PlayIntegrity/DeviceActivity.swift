internal import AttestCore
package import FoundationEssentials

/// `deviceIntegrity.recentDeviceActivity.deviceActivityLevel`: how many integrity tokens this device
/// requested for this app in the last hour (standard requests: `LEVEL_1` up to 10, `LEVEL_2` 11–25,
/// `LEVEL_3` 26–50, `LEVEL_4` more than 50). `UNEVALUATED` when Google did not evaluate it (too little
/// data, or a device that does not meet the integrity bar); ordered by how much activity it reports.
package enum DeviceActivityLevel: Int, Sendable, Hashable, Comparable, CaseIterable {
    case unevaluated = 0
    case level1
    case level2
    case level3
    case level4

    /// The level a route refuses above when it says nothing (`maxDeviceActivity`, docs/playintegrity.md).
    package static let routeDefault = DeviceActivityLevel.level3

    /// Google's spelling of one level; nil for any other text.
    package init?(verdict: String) {
        switch verdict {
        case "UNEVALUATED": self = .unevaluated
        case "LEVEL_1": self = .level1
        case "LEVEL_2": self = .level2
        case "LEVEL_3": self = .level3
        case "LEVEL_4": self = .level4
        default: return nil
        }
    }

    /// Google's spelling, as the `ROUTES` setting and the configuration summary write it.
    package var verdict: String {
        switch self {
        case .unevaluated: "UNEVALUATED"
        case .level1: "LEVEL_1"
        case .level2: "LEVEL_2"
        case .level3: "LEVEL_3"
        case .level4: "LEVEL_4"
        }
    }

    package static func < (lhs: DeviceActivityLevel, rhs: DeviceActivityLevel) -> Bool {
        lhs.rawValue < rhs.rawValue
    }
}

/// What a decoded payload says about recent device activity.
package enum DeviceActivityReading: Sendable, Hashable {
    /// A level Google documents; an absent field (or an explicit `null`) reads as `.unevaluated`.
    case level(DeviceActivityLevel)
    /// A value we do not know (a new level, a wrong JSON type): refused, never read as a pass.
    case unrecognized
}

/// `recentDeviceActivity` at most the route's `maxDeviceActivity`. `UNEVALUATED` passes (Google gives no
/// figure; the other checks still decide); a level above the maximum, or one we cannot read, fails.
package struct DeviceActivityPolicy: VerdictPolicy {
    package let maxLevel: DeviceActivityLevel
    package init(maxLevel: DeviceActivityLevel) { self.maxLevel = maxLevel }

    package func evaluate(_ payload: IntegrityPayload, now: Date) -> VerdictResult {
        switch payload.deviceActivity {
        case .unrecognized: .fail(.deviceActivityUnrecognized)
        case .level(.unevaluated): .pass
        case .level(let level): level > maxLevel ? .fail(.deviceActivityTooHigh) : .pass
        }
    }
}
