package import AttestCore

/// Who pays for one call to Apple: one unit of `deviceID`'s daily budget, spent after our own JWT is
/// signed and before the call (`AppleCall`; docs/playintegrity.md).
package struct DeviceCheckCharge: Sendable {
    package let budget: any DeviceDailyBudget
    package let deviceID: String

    package init(budget: any DeviceDailyBudget, deviceID: String) {
        self.budget = budget
        self.deviceID = deviceID
    }
}
