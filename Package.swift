// swift-tools-version:6.0
import PackageDescription

/// Swift 6 language mode everywhere, with the upcoming features of the house style switched on.
let strictSettings: [SwiftSetting] = [
    .enableUpcomingFeature("InternalImportsByDefault"),
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
    // Release code reaches generic type metadata through its accessor functions, with the conformances it
    // already knows, instead of by mangled name: that path demangles the name and scans every protocol
    // conformance record of the binary for each new (type, protocol) pair, a third of a cold start's
    // instructions (docs/performance-archive.md, "Init order").
    .unsafeFlags(
        ["-Xfrontend", "-disable-concrete-type-metadata-mangled-name-accessors"],
        .when(configuration: .release)
    ),
]

func module(_ name: String, in folder: String, _ dependencies: [Target.Dependency]) -> Target {
    .target(name: name, dependencies: dependencies, path: "\(folder)/\(name)", swiftSettings: strictSettings)
}

/// A Swift Testing target; `exclude` lists data folders (fixtures are read via `#filePath`, not as resources).
func tests(_ name: String, _ dependencies: [Target.Dependency], exclude: [String] = []) -> Target {
    .testTarget(name: name, dependencies: dependencies, exclude: exclude, swiftSettings: strictSettings)
}

/// The shipped binary's release link (docs/performance-archive.md): libstdc++ statically, from the libstdc++.a
/// that scripts/build-curl.sh links into build/link (absent: the shared one, as before); lld, for packed
/// relative relocations (DT_RELR: a few KB for the loader instead of ~1 MB of R_X86_64_RELATIVE); no
/// dynamic symbol table of our own (the static Swift stdlib's link asks for `-export-dynamic`: 6,000 Swift
/// symbols nothing looks up, 0.5 MB); no DWARF unwind tables (scripts/discard-eh-frame.ld says why nothing
/// needs them: 0.74 MiB of the zip); the code and data that run before the first `/next` first in their
/// sections, in the order scripts/init-order.txt gives (`make init-order` writes it: a cold start then
/// faults in fewer pages). OpenSSL and zlib come static through PKG_CONFIG_PATH (scripts/link-static.sh).
let shippedLinkSettings: [LinkerSetting] = [
    .unsafeFlags(
        [
            "-L", "\(Context.packageDirectory)/build/link", "-use-ld=lld", "-Xlinker", "-z", "-Xlinker",
            "pack-relative-relocs", "-Xlinker", "--no-export-dynamic", "-Xlinker", "-T", "-Xlinker",
            "\(Context.packageDirectory)/scripts/discard-eh-frame.ld", "-Xlinker",
            "--symbol-ordering-file=\(Context.packageDirectory)/scripts/init-order.txt", "-Xlinker",
            "--no-warn-symbol-ordering",
        ],
        .when(configuration: .release)
    )
]

let package = Package(
    name: "AttestGate",
    products: [
        // One shipped binary: `attestgate` is a link to `bootstrap`, which runs the operator CLI under that
        // name (OperatorCLI; docs/deploy.md). `make build` makes the link next to the release binary.
        .executable(name: "bootstrap", targets: ["bootstrap"])
    ],
    targets: [
        // C layer: system libraries (modulemap + header only) and one compiled shim target.
        .systemLibrary(
            name: "COpenSSL",
            path: "Sources/1-C/COpenSSL",
            pkgConfig: "libcrypto",
            providers: [.apt(["libssl-dev"]), .yum(["openssl-devel"])]
        ),
        .systemLibrary(
            name: "CCurl",
            path: "Sources/1-C/CCurl",
            pkgConfig: "libcurl",
            providers: [.apt(["libcurl4-openssl-dev"]), .yum(["libcurl-devel"])]
        ),
        .target(name: "CShims", dependencies: ["COpenSSL", "CCurl"], path: "Sources/1-C/CShims"),

        // Foundations shared by every layer above the C wrappers.
        module("AttestCore", in: "Sources/2-Core", ["CivilTime"]),
        module("CivilTime", in: "Sources/2-Core", []),
        module("Crypto", in: "Sources/3-Wrappers", ["COpenSSL", "CShims", "AttestCore"]),
        module("HTTPClient", in: "Sources/3-Wrappers", ["CCurl", "CShims", "AttestCore"]),

        // Protocols and verifiers, each alone with the fewest dependencies.
        module("CBOR", in: "Sources/4-Protocols", []),
        module("SigV4", in: "Sources/4-Protocols", ["Crypto"]),
        .target(
            name: "AppAttest",
            dependencies: ["CBOR", "Crypto", "AttestCore"],
            path: "Sources/4-Protocols/AppAttest",
            exclude: ["Roots"],
            swiftSettings: strictSettings
        ),
        module("AWSJSON", in: "Sources/4-Protocols", ["SigV4", "HTTPClient", "AttestCore"]),
        module("DynamoDB", in: "Sources/4-Protocols", ["AWSJSON", "SigV4", "HTTPClient", "Crypto", "AttestCore"]),
        module("SecretsManager", in: "Sources/4-Protocols", ["AWSJSON", "SigV4", "HTTPClient", "AttestCore"]),
        module("PlayIntegrity", in: "Sources/4-Protocols", ["Crypto", "HTTPClient", "CivilTime", "AttestCore"]),
        module("DeviceCheck", in: "Sources/4-Protocols", ["Crypto", "HTTPClient", "CivilTime", "AttestCore"]),
        module("Dialects", in: "Sources/4-Protocols", ["AttestCore"]),
        // The HTTP API's wire contract (docs/api.md): header names, the client-data document and its hashes.
        module("WireContract", in: "Sources/4-Protocols", ["Crypto", "AttestCore"]),

        // The three layers, then the Lambda runtime and the app that wires them.
        module(
            "Gate",
            in: "Sources/5-Layers",
            [
                "AppAttest", "PlayIntegrity", "DeviceCheck", "DynamoDB", "AWSJSON", "WireContract", "HTTPClient",
                "Crypto", "CivilTime", "Dialects", "AttestCore",
            ]
        ),
        module("LambdaRuntime", in: "Sources/5-Layers", ["HTTPClient", "AttestCore"]),
        module(
            "App",
            in: "Sources/6-App",
            [
                "Gate", "LambdaRuntime", "DynamoDB", "SecretsManager", "SigV4", "AWSJSON", "AppAttest", "PlayIntegrity",
                "DeviceCheck", "WireContract", "HTTPClient", "Crypto", "CivilTime", "Dialects", "AttestCore",
            ]
        ),
        // The operator CLI (`attestgate config check|table|verify-*`), run by `bootstrap` under that name.
        module(
            "OperatorCLI",
            in: "Sources/6-App",
            [
                "App", "Gate", "AppAttest", "DynamoDB", "Dialects", "AWSJSON", "HTTPClient", "Crypto", "CivilTime",
                "AttestCore",
            ]
        ),
        .executableTarget(
            name: "bootstrap",
            dependencies: ["App", "OperatorCLI", "LambdaRuntime", "HTTPClient", "AttestCore", "CShims"],
            path: "Sources/7-Executables/bootstrap",
            swiftSettings: strictSettings,
            linkerSettings: shippedLinkSettings
        ),

        // libFuzzer harness over CBOR and the App Attest verifiers (make fuzz); a corpus replayer otherwise.
        .executableTarget(
            name: "AppAttestFuzz",
            dependencies: ["AppAttest", "CBOR", "Crypto", "AttestCore"],
            path: "Tools/AppAttestFuzz",
            swiftSettings: strictSettings
        ),

        // make bench: verification throughput next to openssl speed (issue 11 extends it).
        .executableTarget(
            name: "AppAttestBench",
            dependencies: ["AppAttest", "SimulatedDevice", "CryptoTestSupport", "Crypto"],
            path: "Tools/AppAttestBench",
            swiftSettings: strictSettings
        ),

        // make ci-ddb-local: every conditional write under resends, with controls (docs/resend-harness.md).
        .executableTarget(
            name: "ddb-harness",
            dependencies: [
                "Gate", "PlayIntegrity", "DeviceCheck", "DynamoDB", "AWSJSON", "TestSupport", "HTTPClient", "Crypto",
                "CivilTime", "AttestCore",
            ],
            path: "Tools/ddb-harness",
            swiftSettings: strictSettings
        ),

        // make bench: a genuine iOS client timing metered calls through the local harness (local-harness/bench.py).
        .executableTarget(
            name: "GateBench",
            dependencies: ["SimulatedDevice", "WireContract", "HTTPClient", "Crypto", "AttestCore"],
            path: "Tools/GateBench",
            swiftSettings: strictSettings
        ),

        // What only tests make: keys, certificates, PKCS#7 signatures (OpenSSL; the product only verifies).
        module("CryptoTestSupport", in: "Tests/Support", ["COpenSSL", "CShims", "Crypto"]),
        // A genuine device in software (synthetic Apple-shaped chain, Play tokens for the fake Google).
        module("SimulatedDevice", in: "Tests/Support", ["CBOR", "CryptoTestSupport", "Crypto", "AttestCore"]),

        // The Swift client library's platform-neutral core (Clients/swift, a package of its own for apps),
        // compiled here too so that the demo's iOS device is played by the shipped client. Its Apple glue
        // (Apple/, `#if canImport(DeviceCheck)`) and its URLSession transport stay out: the demo supplies the
        // simulated Secure Enclave and libcurl.
        .target(
            name: "AttestGateClient",
            path: "Clients/swift/Sources/AttestGateClient",
            exclude: ["Apple", "Transport/URLSessionTransport.swift"],
            swiftSettings: strictSettings
        ),

        // make run's scripted session and a reference client (docs/api.md wire format); not in the Lambda zip.
        .executableTarget(
            name: "attestgate-demo",
            dependencies: [
                "AttestGateClient", "SimulatedDevice", "DynamoDB", "AWSJSON", "WireContract", "HTTPClient", "Crypto",
                "CivilTime", "AttestCore",
            ],
            path: "Tools/attestgate-demo",
            swiftSettings: strictSettings
        ),

        // Fakes and loopback servers shared by the test targets (never linked into a product).
        module("TestSupport", in: "Tests/Support", ["HTTPClient", "PlayIntegrity", "CivilTime", "AttestCore"]),
        // The real API handler in process against moto (GateTestApp): flows through the router.
        module(
            "AppTestSupport",
            in: "Tests/Support",
            [
                "App", "LambdaRuntime", "DynamoDB", "AWSJSON", "SimulatedDevice", "TestSupport", "CryptoTestSupport",
                "WireContract", "HTTPClient", "Crypto", "AttestCore",
            ]
        ),

        tests("CryptoTests", ["Crypto", "CryptoTestSupport", "TestSupport", "AttestCore"], exclude: ["Fixtures"]),
        tests("AttestCoreTests", ["AttestCore", "TestSupport"]),
        tests("CivilTimeTests", ["CivilTime", "TestSupport"], exclude: ["Fixtures"]),
        tests(
            "PlayIntegrityTests",
            [
                "PlayIntegrity", "HTTPClient", "Crypto", "CryptoTestSupport", "AttestCore", "TestSupport",
                "WireContract",
            ],
            exclude: ["Fixtures"]
        ),
        tests("HTTPClientTests", ["HTTPClient", "TestSupport"]),
        tests(
            "GateTests",
            [
                "Gate", "AppAttest", "PlayIntegrity", "SimulatedDevice", "TestSupport", "DynamoDB", "AWSJSON",
                "HTTPClient", "Crypto", "CivilTime", "AttestCore", "WireContract", "DeviceCheck",
            ]
        ),
        tests("SigV4Tests", ["SigV4", "AttestCore"], exclude: ["Fixtures"]),
        tests("CBORTests", ["CBOR"]),
        tests("DialectsTests", ["Dialects", "AttestCore"]),
        tests("WireContractTests", ["WireContract", "Crypto", "AttestCore"]),
        tests(
            "AttestgateCLITests",
            [
                "OperatorCLI", "App", "AppTestSupport", "SimulatedDevice", "TestSupport", "DynamoDB", "WireContract",
                "CivilTime",
                "Crypto", "AttestCore",
            ]
        ),
        tests(
            "AppAttestTests",
            ["AppAttest", "SimulatedDevice", "CBOR", "Crypto", "CryptoTestSupport", "TestSupport", "AttestCore"],
            exclude: ["Fixtures"]
        ),
        tests("AWSJSONTests", ["AWSJSON", "SecretsManager", "SigV4", "HTTPClient", "TestSupport", "AttestCore"]),
        tests("DynamoDBTests", ["DynamoDB", "AWSJSON", "HTTPClient", "TestSupport", "AttestCore"]),
        tests(
            "LambdaRuntimeTests",
            ["LambdaRuntime", "HTTPClient", "AttestCore", "TestSupport"],
            exclude: ["Fixtures"]
        ),
        tests(
            "DeviceCheckTests",
            ["DeviceCheck", "HTTPClient", "Crypto", "CryptoTestSupport", "CivilTime", "AttestCore", "TestSupport"]
        ),
        tests(
            "AppTests",
            ["App", "Gate", "Dialects", "LambdaRuntime", "WireContract", "HTTPClient", "AttestCore", "TestSupport"]
        ),
        tests(
            "BootstrapTests",
            [
                "TestSupport", "SimulatedDevice", "CryptoTestSupport", "WireContract", "HTTPClient", "DynamoDB",
                "AWSJSON", "Crypto", "AttestCore",
            ],
            exclude: ["Fixtures"]
        ),
        tests(
            "AttestationFlowTests",
            [
                "AppTestSupport", "App", "SimulatedDevice", "TestSupport", "DynamoDB", "HTTPClient", "Crypto",
                "CryptoTestSupport", "WireContract", "CivilTime", "AttestCore", "AppAttest", "DeviceCheck",
            ]
        ),
        tests(
            "SpendFlowTests",
            ["AppTestSupport", "TestSupport", "WireContract", "DynamoDB", "CivilTime", "AttestCore"]
        ),
    ]
)
