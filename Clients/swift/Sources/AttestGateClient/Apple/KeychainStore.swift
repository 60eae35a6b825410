#if canImport(Security) && (os(iOS) || os(macOS))
internal import Foundation
@preconcurrency internal import Security

/// `SecureStore` in the Keychain: generic-password items of one service, readable after the first unlock
/// and never synced or restored to another device (`kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly`: an
/// App Attest key id means nothing on another device). Items survive a reinstall of the app; App Attest keys
/// do not, which is how a reinstall keeps its device ID and gets a new key. Not compiled on Linux.
///
/// On macOS it uses the data protection keychain (`kSecUseDataProtectionKeychain`), which needs the app to
/// be signed with a team (App Attest needs that too).
public struct KeychainStore: SecureStore {
    /// `kSecAttrService` of every item.
    public let service: String
    /// `kSecAttrAccessGroup`, to share the items with an app extension; nil: the app's default group.
    public let accessGroup: String?

    public init(service: String = "dev.attestgate.client", accessGroup: String? = nil) {
        self.service = service
        self.accessGroup = accessGroup
    }

    public func read(_ name: String) async throws -> [UInt8]? {
        var query = baseQuery(name)
        query[kSecReturnData as String] = true
        query[kSecMatchLimit as String] = kSecMatchLimitOne
        var result: CFTypeRef?
        let status = SecItemCopyMatching(query as CFDictionary, &result)
        switch status {
        case errSecSuccess:
            guard let data = result as? Data else { throw ClientError(.storeFailed, detail: "item is not data") }
            return [UInt8](data)
        case errSecItemNotFound:
            return nil
        default:
            throw ClientError(.storeFailed, detail: "SecItemCopyMatching: \(status)")
        }
    }

    public func write(_ name: String, _ value: [UInt8]) async throws {
        let data = Data(value)
        let update = [kSecValueData as String: data] as [String: Any]
        let status = SecItemUpdate(baseQuery(name) as CFDictionary, update as CFDictionary)
        switch status {
        case errSecSuccess:
            return
        case errSecItemNotFound:
            var item = baseQuery(name)
            item[kSecValueData as String] = data
            item[kSecAttrAccessible as String] = kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly
            let added = SecItemAdd(item as CFDictionary, nil)
            guard added == errSecSuccess else { throw ClientError(.storeFailed, detail: "SecItemAdd: \(added)") }
        default:
            throw ClientError(.storeFailed, detail: "SecItemUpdate: \(status)")
        }
    }

    public func delete(_ name: String) async throws {
        let status = SecItemDelete(baseQuery(name) as CFDictionary)
        guard status == errSecSuccess || status == errSecItemNotFound else {
            throw ClientError(.storeFailed, detail: "SecItemDelete: \(status)")
        }
    }

    /// The attributes that name one item: class, service, account (`name`), group.
    private func baseQuery(_ name: String) -> [String: Any] {
        var query: [String: Any] = [
            kSecClass as String: kSecClassGenericPassword,
            kSecAttrService as String: service,
            kSecAttrAccount as String: name,
        ]
        if let accessGroup { query[kSecAttrAccessGroup as String] = accessGroup }
        #if os(macOS)
        query[kSecUseDataProtectionKeychain as String] = true
        #endif
        return query
    }
}
#endif
