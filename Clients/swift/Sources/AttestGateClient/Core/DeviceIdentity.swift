#if canImport(FoundationEssentials)
internal import FoundationEssentials
#else
internal import Foundation
#endif

/// The guest's device ID (docs/api.md section 2): a UUID the app makes once and keeps. In the Keychain it
/// survives a reinstall, so a reinstalled app keeps its allowance and its tier and registers a new App
/// Attest key for the same ID (`rebound`).
public enum DeviceIdentity {
    /// The store's name for the device ID.
    public static let storeName = "attestgate.device-id"

    /// The device ID kept in `store`, made (a random version 4 UUID, lower case) and kept on first use.
    /// - Throws: `ClientError` (`client.store_failed`) when the store cannot be read or written: the app
    ///   should not make up a new ID on every launch, which would spend a new first-day allowance each time.
    public static func loadOrCreate(in store: any SecureStore) async throws -> String {
        do {
            if let bytes = try await store.read(storeName) {
                let text = String(decoding: bytes, as: UTF8.self)
                if isDeviceID(text) { return text.lowercased() }
            }
            let made = UUID().uuidString.lowercased()
            try await store.write(storeName, Array(made.utf8))
            return made
        } catch let error as ClientError {
            throw error
        } catch {
            throw ClientError(.storeFailed, detail: "\(error)")
        }
    }

    /// Whether `text` is a UUID in its 8-4-4-4-12 hex form, in any letter case (what the server accepts).
    public static func isDeviceID(_ text: String) -> Bool { UUID(uuidString: text) != nil && text.utf8.count == 36 }
}
