// swift-tools-version:6.0
import PackageDescription

/// The AttestGate client for iOS and macOS apps (README.md): no dependency beyond Apple's SDK and Foundation.
///
/// `Sources/AttestGateClient/Core` and `Transport` are platform-neutral and built and tested on Linux too;
/// `Sources/AttestGateClient/Apple` (App Attest, DeviceCheck, the Keychain) compiles only where Apple's
/// frameworks exist (`#if canImport(DeviceCheck)`, `#if canImport(Security)`).
let settings: [SwiftSetting] = [
    .enableUpcomingFeature("InternalImportsByDefault"),
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

let package = Package(
    name: "AttestGateClient",
    platforms: [.iOS(.v14), .macOS(.v11)],
    products: [
        .library(name: "AttestGateClient", targets: ["AttestGateClient"])
    ],
    targets: [
        .target(name: "AttestGateClient", swiftSettings: settings),
        .testTarget(
            name: "AttestGateClientTests",
            dependencies: ["AttestGateClient"],
            exclude: ["Fixtures"],
            swiftSettings: settings
        ),
    ]
)
