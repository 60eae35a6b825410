internal import AppAttest
internal import AttestCore
internal import CivilTime
internal import Crypto
internal import DeviceCheck
internal import Gate
internal import HTTPClient

extension Application {
    /// App Attest's fraud-risk metric (docs/appattest.md "The fraud-risk metric"): the receipt exchange at
    /// `APP_ATTEST_RECEIPT_ENDPOINT` with the DeviceCheck key's JWT, every call paid from the device ID's
    /// DeviceCheck budget. nil unless `DEVICE_MARKS=on` with the DeviceCheck key and App Attest configured.
    /// - Returns: the registration's risk provider and the metered path's daily refresh.
    static func receiptRisk(
        _ configuration: Configuration,
        key: P256PrivateKey?,
        verifier: AppAttestVerifier?,
        table: GateTable,
        marks: DeviceMarkService?,
        transport: any HTTPTransport,
        logger: Logger
    ) -> (registration: ReceiptRiskMetric, refresh: ReceiptRiskRefresh)? {
        guard configuration.deviceMarks, let settings = configuration.deviceCheck,
            let apple = configuration.appleAppID, let key, let verifier
        else { return nil }
        let metric = ReceiptRiskMetric(
            exchanger: ReceiptExchangeClient(
                configuration: ReceiptExchangeConfiguration(
                    teamID: apple.teamID,
                    keyID: settings.keyID,
                    endpoint: configuration.appAttestReceiptEndpoint
                ),
                key: key,
                transport: transport,
                logger: logger
            ),
            verifier: verifier,
            store: DynamoAppAttestKeyStore(table: table),
            budget: DynamoDeviceDailyBudget.deviceCheckQueries(
                table: table,
                perDevice: configuration.deviceCheckBudgetPerDevice,
                calendar: .utc
            ),
            metricMax: configuration.riskMetricMax,
            logger: logger
        )
        let refresh = ReceiptRiskRefresh(
            metric: metric,
            tiers: DynamoDeviceTierStore(table: table),
            marks: marks,
            calendar: configuration.budgetCalendar,
            logger: logger
        )
        return (metric, refresh)
    }
}
