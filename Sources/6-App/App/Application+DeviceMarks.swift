internal import AttestCore
internal import CivilTime
internal import Crypto
internal import DeviceCheck
internal import Gate
internal import HTTPClient

extension Application {
    /// The mark service of `DEVICE_MARKS=on` (docs/appattest.md "Device marks"): DeviceCheck's two bits
    /// with the DeviceCheck key, every call paid from the device ID's DeviceCheck budget. nil when marks
    /// are off (configuration refuses marks on without the key).
    static func deviceMarks(
        _ configuration: Configuration,
        key: P256PrivateKey?,
        table: GateTable,
        transport: any HTTPTransport,
        random: any RandomSource,
        logger: Logger
    ) -> DeviceMarkService? {
        guard configuration.deviceMarks, let settings = configuration.deviceCheck,
            let apple = configuration.appleAppID, let key
        else { return nil }
        let bits = DeviceCheckBitsClient(
            configuration: DeviceCheckConfiguration(
                teamID: apple.teamID,
                keyID: settings.keyID,
                endpoint: configuration.deviceCheckEndpoint
            ),
            key: key,
            transport: transport,
            random: random,
            logger: logger
        )
        return DeviceMarkService(
            bits: bits,
            budget: DynamoDeviceDailyBudget.deviceCheckQueries(
                table: table,
                perDevice: configuration.deviceCheckBudgetPerDevice,
                calendar: .utc
            ),
            markMonths: configuration.deviceMarkMonths
        )
    }
}
