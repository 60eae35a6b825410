import App
import AttestCore
import Testing

/// `PLAY_DEVICE_RECALL` (docs/api.md section 5, docs/playintegrity.md "Device recall").
@Suite struct PlayDeviceRecallSettingTests {
    static let play = ConfigurationTests.minimal.with("ANDROID_PACKAGE", "com.example.app")
        .with("ANDROID_CERT_SHA256", "kGdt2rZz6yPfsZUxxXDFXaC5h1HWpvNzUUTXd9Ib8Pw")
        .with("GOOGLE_SERVICE_ACCOUNT_FILE", "/tmp/sa.json")

    static func reasons(_ env: Environment) -> [String] {
        do {
            _ = try Configuration(environment: env)
            return []
        } catch {
            return error.problems.map { "\($0.reason.slug) \($0.variable)" }
        }
    }

    @Test func itIsOffUnlessTurnedOn() throws {
        let config = try Configuration(environment: Self.play)
        #expect(!config.playDeviceRecall)
        #expect(config.summary["playIntegrity"]?["deviceRecall"] == .string("off"))
        #expect(!(try Configuration(environment: Self.play.with("PLAY_DEVICE_RECALL", "off"))).playDeviceRecall)
    }

    @Test func onIsReadAndShownInTheSummary() throws {
        let config = try Configuration(environment: Self.play.with("PLAY_DEVICE_RECALL", "on"))
        #expect(config.playDeviceRecall)
        #expect(config.summary["playIntegrity"]?["deviceRecall"] == .string("on"))
    }

    @Test func onWithoutPlayIntegrityRefusesToStart() {
        #expect(
            Self.reasons(ConfigurationTests.minimal.with("PLAY_DEVICE_RECALL", "on"))
                == ["config.incomplete_provider PLAY_DEVICE_RECALL"]
        )
        // Off needs nothing.
        #expect(Self.reasons(ConfigurationTests.minimal.with("PLAY_DEVICE_RECALL", "off")).isEmpty)
    }

    @Test(arguments: ["true", "ON", "1", "yes", " on"])
    func onlyOnAndOffAreAccepted(_ value: String) {
        #expect(
            Self.reasons(Self.play.with("PLAY_DEVICE_RECALL", value)) == ["config.invalid_value PLAY_DEVICE_RECALL"]
        )
    }
}
