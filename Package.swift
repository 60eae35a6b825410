// swift-tools-version:6.0
import PackageDescription

/// Swift 6 language mode everywhere, with the upcoming features of the house style switched on.
let strictSettings: [SwiftSetting] = [
    .enableUpcomingFeature("InternalImportsByDefault"),
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

func module(_ name: String, _ dependencies: [Target.Dependency]) -> Target {
    .target(name: name, dependencies: dependencies, swiftSettings: strictSettings)
}

/// A Swift Testing target; `exclude` lists data folders (fixtures are read via `#filePath`, not as resources).
func tests(_ name: String, _ dependencies: [Target.Dependency], exclude: [String] = []) -> Target {
    .testTarget(name: name, dependencies: dependencies, exclude: exclude, swiftSettings: strictSettings)
}

let package = Package(
    name: "AttestGate",
    products: [
        .executable(name: "bootstrap", targets: ["bootstrap"]),
        .executable(name: "attestgate", targets: ["attestgate"]),
    ],
    targets: [
        // C layer: system libraries (modulemap + header only) and one compiled shim target.
        .systemLibrary(
            name: "COpenSSL",
            pkgConfig: "libcrypto",
            providers: [.apt(["libssl-dev"]), .yum(["openssl-devel"])]
        ),
        .systemLibrary(
            name: "CCurl",
            pkgConfig: "libcurl",
            providers: [.apt(["libcurl4-openssl-dev"]), .yum(["libcurl-devel"])]
        ),
        .target(name: "CShims", dependencies: ["COpenSSL", "CCurl"]),

        // Foundations shared by every layer above the C wrappers.
        module("AttestCore", []),
        module("Crypto", ["COpenSSL", "CShims", "AttestCore"]),
        module("HTTPClient", ["CCurl", "CShims", "AttestCore"]),

        // Protocols and verifiers, each alone with the fewest dependencies.
        module("CBOR", []),
        module("SigV4", ["Crypto"]),
        .target(
            name: "AppAttest",
            dependencies: ["CBOR", "Crypto", "AttestCore"],
            exclude: ["Roots"],
            swiftSettings: strictSettings
        ),
        module("AWSJSON", ["SigV4", "HTTPClient", "AttestCore"]),
        module("DynamoDB", ["AWSJSON", "SigV4", "HTTPClient", "Crypto", "AttestCore"]),
        module("SecretsManager", ["AWSJSON", "SigV4", "HTTPClient", "AttestCore"]),
        module("PlayIntegrity", ["Crypto", "HTTPClient", "AttestCore"]),
        module("DeviceCheck", ["Crypto", "HTTPClient", "AttestCore"]),

        // The three layers, then the Lambda runtime and the app that wires them.
        module(
            "Gate",
            ["AppAttest", "PlayIntegrity", "DeviceCheck", "DynamoDB", "AWSJSON", "HTTPClient", "Crypto", "AttestCore"]
        ),
        module("LambdaRuntime", ["HTTPClient", "AttestCore"]),
        module(
            "App",
            [
                "Gate", "LambdaRuntime", "DynamoDB", "SecretsManager", "SigV4", "AWSJSON", "AppAttest", "PlayIntegrity",
                "DeviceCheck", "HTTPClient", "Crypto", "AttestCore",
            ]
        ),
        .executableTarget(
            name: "bootstrap",
            dependencies: ["App", "LambdaRuntime", "HTTPClient", "AttestCore"],
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "attestgate",
            dependencies: ["App", "AppAttest", "DynamoDB", "AWSJSON", "HTTPClient", "Crypto", "AttestCore"],
            swiftSettings: strictSettings
        ),

        // libFuzzer harness over CBOR and the App Attest verifiers (make fuzz); a corpus replayer otherwise.
        .executableTarget(
            name: "AppAttestFuzz",
            dependencies: ["AppAttest", "CBOR", "Crypto", "AttestCore"],
            swiftSettings: strictSettings
        ),

        // make bench: verification throughput next to openssl speed (issue 11 extends it).
        .executableTarget(
            name: "AppAttestBench",
            dependencies: ["AppAttest", "SimulatedDevice", "Crypto"],
            swiftSettings: strictSettings
        ),

        // make ci-ddb-local: every conditional write under resends, with controls (docs/resend-harness.md).
        .executableTarget(
            name: "ddb-harness",
            dependencies: ["Gate", "PlayIntegrity", "DynamoDB", "AWSJSON", "HTTPClient", "Crypto", "AttestCore"],
            swiftSettings: strictSettings
        ),

        // make bench: a genuine iOS client timing metered calls through the local harness (local-harness/bench.py).
        .executableTarget(
            name: "GateBench",
            dependencies: ["SimulatedDevice", "HTTPClient", "Crypto", "AttestCore"],
            swiftSettings: strictSettings
        ),

        // A genuine device in software (synthetic Apple-shaped chain, Play tokens for the fake Google).
        module("SimulatedDevice", ["CBOR", "Crypto", "AttestCore"]),

        // make run's scripted session and a reference client (design.md wire format); not in the Lambda zip.
        .executableTarget(
            name: "attestgate-demo",
            dependencies: ["SimulatedDevice", "DynamoDB", "AWSJSON", "HTTPClient", "Crypto", "AttestCore"],
            swiftSettings: strictSettings
        ),

        // Fakes and loopback servers shared by the test targets (never linked into a product).
        module("TestSupport", ["HTTPClient", "AttestCore"]),
        // The real API handler in process against moto (GateTestApp): flows through the router.
        module(
            "AppTestSupport",
            [
                "App", "LambdaRuntime", "DynamoDB", "AWSJSON", "SimulatedDevice", "TestSupport", "HTTPClient", "Crypto",
                "AttestCore",
            ]
        ),

        tests("CryptoTests", ["Crypto", "AttestCore"], exclude: ["Fixtures"]),
        tests("AttestCoreTests", ["AttestCore"], exclude: ["Fixtures"]),
        tests(
            "PlayIntegrityTests",
            ["PlayIntegrity", "HTTPClient", "Crypto", "AttestCore", "TestSupport"],
            exclude: ["Fixtures"]
        ),
        tests("HTTPClientTests", ["HTTPClient", "TestSupport"]),
        tests(
            "GateTests",
            ["Gate", "AppAttest", "SimulatedDevice", "DynamoDB", "AWSJSON", "HTTPClient", "Crypto", "AttestCore"]
        ),
        tests("SigV4Tests", ["SigV4", "AttestCore"], exclude: ["Fixtures"]),
        tests("CBORTests", ["CBOR"]),
        tests("AttestgateCLITests", ["attestgate", "SimulatedDevice", "Crypto", "AttestCore"]),
        tests(
            "AppAttestTests",
            ["AppAttest", "SimulatedDevice", "CBOR", "Crypto", "AttestCore"],
            exclude: ["Fixtures"]
        ),
        tests("AWSJSONTests", ["AWSJSON", "SecretsManager", "SigV4", "HTTPClient", "TestSupport", "AttestCore"]),
        tests("DynamoDBTests", ["DynamoDB", "AWSJSON", "HTTPClient", "TestSupport", "AttestCore"]),
        tests(
            "LambdaRuntimeTests",
            ["LambdaRuntime", "HTTPClient", "AttestCore", "TestSupport"],
            exclude: ["Fixtures"]
        ),
        tests("DeviceCheckTests", ["DeviceCheck", "HTTPClient", "Crypto", "AttestCore", "TestSupport"]),
        tests("AppTests", ["App", "Gate", "LambdaRuntime", "HTTPClient", "AttestCore", "TestSupport"]),
        tests(
            "BootstrapTests",
            ["TestSupport", "HTTPClient", "DynamoDB", "AWSJSON", "Crypto", "AttestCore"],
            exclude: ["Fixtures"]
        ),
        tests(
            "AttestationFlowTests",
            [
                "AppTestSupport", "App", "SimulatedDevice", "TestSupport", "DynamoDB", "HTTPClient", "Crypto",
                "AttestCore",
            ]
        ),
        tests("SpendFlowTests", ["AppTestSupport", "TestSupport", "DynamoDB", "AttestCore"]),
    ]
)
