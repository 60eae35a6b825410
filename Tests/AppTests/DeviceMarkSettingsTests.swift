import App
import AttestCore
import Testing

/// Device marks' settings (docs/api.md section 5): `DEVICE_MARKS` (needs the DeviceCheck key) and `DEVICE_MARK_MONTHS`.
@Suite struct DeviceMarkSettingsTests {
    static func problems(_ extra: [String: String]) -> [String] {
        do {
            _ = try Configuration(environment: DeviceCheckSettingsTests.environment(extra))
            return []
        } catch {
            return error.problems.map { "\($0.reason.slug) \($0.variable)" }
        }
    }

    @Test func marksAreOffByDefaultWithThreeMonths() throws {
        let config = try Configuration(
            environment: DeviceCheckSettingsTests.environment(DeviceCheckSettingsTests.deviceCheck)
        )
        #expect(!config.deviceMarks && config.deviceMarkMonths == 3)
        #expect(config.summary["deviceMarks"] == .object(["enabled": .bool(false), "markMonths": .int(3)]))
    }

    @Test func marksOnWithTheDeviceCheckKey() throws {
        var values = DeviceCheckSettingsTests.deviceCheck
        values["DEVICE_MARKS"] = "on"
        values["DEVICE_MARK_MONTHS"] = "12"
        let config = try Configuration(environment: DeviceCheckSettingsTests.environment(values))
        #expect(config.deviceMarks && config.deviceMarkMonths == 12)
        #expect(config.summary["deviceMarks"] == .object(["enabled": .bool(true), "markMonths": .int(12)]))
        values["DEVICE_MARKS"] = "off"
        #expect(try !Configuration(environment: DeviceCheckSettingsTests.environment(values)).deviceMarks)
    }

    @Test func marksOnWithoutTheDeviceCheckKeyRefuseToStart() {
        #expect(Self.problems(["DEVICE_MARKS": "on"]) == ["config.device_marks_without_devicecheck DEVICE_MARKS"])
        // Half a key is named as well.
        #expect(
            Self.problems([
                "DEVICE_MARKS": "on", "APPLE_TEAM_ID": "TEAMID1234", "APPLE_BUNDLE_IDS": "com.example.app",
                "DEVICECHECK_KEY_ID": "KEY",
            ]) == [
                "config.incomplete_provider DEVICECHECK_KEY_ID", "config.device_marks_without_devicecheck DEVICE_MARKS",
            ]
        )
    }

    @Test(arguments: ["yes", "true", "ON", "1"])
    func marksAreOnOrOff(_ value: String) {
        var values = DeviceCheckSettingsTests.deviceCheck
        values["DEVICE_MARKS"] = value
        #expect(Self.problems(values) == ["config.invalid_value DEVICE_MARKS"])
    }

    @Test(arguments: ["0", "-1", "3.5", "121", "three"])
    func monthsArePositiveWholeNumbers(_ value: String) {
        var values = DeviceCheckSettingsTests.deviceCheck
        values["DEVICE_MARK_MONTHS"] = value
        #expect(Self.problems(values) == ["config.invalid_number DEVICE_MARK_MONTHS"])
    }
}
