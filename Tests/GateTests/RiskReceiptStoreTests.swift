import AttestCore
import DynamoDB
import FoundationEssentials
import TestSupport
import Testing

@testable import Gate

/// The receipt state on `ATTEST_KEY` against moto: written only for the key the row holds, read back by
/// `lookup`, reset by a rebind, and a resend reports the write it made.
@Suite(.enabled(if: MotoTable.endpoint != nil, "needs DYNAMODB_ENDPOINT (make test starts moto)"))
struct RiskReceiptStoreTests {
    let device = "7a1c3a52-8f4e-4c39-9a55-0d3b1b7e2f10"
    let notBefore = Date(timeIntervalSince1970: 1_796_212_800)

    func key(_ byte: UInt8, unverified: Bool = false) -> StoredAppAttestKey {
        StoredAppAttestKey(
            keyId: [UInt8](repeating: byte, count: 32),
            publicKey: [4, byte],
            counter: 0,
            environment: "development",
            risk: StoredRisk(unverified: unverified)
        )
    }

    @Test func theReceiptStateIsWrittenOnlyForTheKeyTheRowHolds() async throws {
        let table = try await MotoTable.make()
        let store = DynamoAppAttestKeyStore(table: table)
        let first = key(1, unverified: true)
        #expect(try await store.bind(deviceID: device, key: first, receipt: [9, 9]) == .bound)
        #expect(try await store.lookup(deviceID: device).key?.risk == StoredRisk(receipt: [9, 9], unverified: true))

        #expect(try await store.stampExchange(deviceID: device, keyId: first.keyId, day: "2026-12-01"))
        #expect(try await store.lookup(deviceID: device).key?.risk.exchangedDay == "2026-12-01")
        #expect(
            try await store.storeReceipt(
                deviceID: device,
                keyId: first.keyId,
                receipt: [5, 5, 5],
                metric: 12,
                notBefore: notBefore,
                day: "2026-12-02"
            )
        )
        let stored = StoredRisk(receipt: [5, 5, 5], metric: 12, notBefore: notBefore, exchangedDay: "2026-12-02")
        #expect(try await store.lookup(deviceID: device).key?.risk == stored)

        // Another key: neither write lands on the row.
        let other = [UInt8](repeating: 7, count: 32)
        #expect(try await !store.stampExchange(deviceID: device, keyId: other, day: "2026-12-03"))
        #expect(
            try await !store.storeReceipt(
                deviceID: device,
                keyId: other,
                receipt: [1],
                metric: 0,
                notBefore: notBefore,
                day: "2026-12-03"
            )
        )
        #expect(try await store.lookup(deviceID: device).key?.risk == stored)

        // A rebind starts over: the new key's receipt, no metric, not-before or day of the old one.
        let second = key(2)
        #expect(try await store.bind(deviceID: device, key: second, receipt: [8]) == .rebound)
        #expect(try await store.lookup(deviceID: device).key?.risk == StoredRisk(receipt: [8]))
        #expect(try await !store.stampExchange(deviceID: device, keyId: first.keyId, day: "2026-12-04"))
    }

    @Test func aResentReceiptWriteReportsTheWriteItMade() async throws {
        let table = try await MotoTable.make()
        let store = DynamoAppAttestKeyStore(table: table)
        let first = key(3)
        _ = try await store.bind(deviceID: device, key: first, receipt: [9])
        let hook = ResendingTransport(resending: ["UpdateItem"])
        let resending = DynamoAppAttestKeyStore(table: try MotoTable.sibling(of: table, hook: hook))
        #expect(
            try await resending.storeReceipt(
                deviceID: device,
                keyId: first.keyId,
                receipt: [4],
                metric: 2,
                notBefore: notBefore,
                day: "2026-12-01"
            )
        )
        #expect(try await resending.stampExchange(deviceID: device, keyId: first.keyId, day: "2026-12-02"))
        #expect(try await store.lookup(deviceID: device).key?.risk.metric == 2)
    }
}
