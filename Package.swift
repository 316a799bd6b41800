// swift-tools-version: 6.0
import PackageDescription

// Module layout: see README "Modules". Each module has one job and its own tests.
let package = Package(
    name: "EmojiRangers",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "rangers", targets: ["rangers"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
    ],
    targets: [
        // The pure, deterministic game: no I/O, no clock, no global randomness.
        .target(name: "Game"),
        // Content/ on disk: loading, the string catalog, sounds, `content check`.
        .target(name: "Catalog", dependencies: ["Game"]),
        // The app's ActivityKit types and the APNs payloads; knows nothing of the game's rules.
        .target(name: "Wire"),
        // Which push each Live Activity gets, when, at what priority, with which alert. Sends nothing.
        .target(name: "PushPolicy", dependencies: ["Game", "Catalog", "Wire"]),
        .executableTarget(
            name: "rangers",
            dependencies: [
                "Game", "Catalog", "Wire", "PushPolicy",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .executableTarget(
            name: "SimulationBench",
            dependencies: ["Game", "Catalog"],
            path: "Benchmarks/SimulationBench"
        ),
        .testTarget(name: "GameTests", dependencies: ["Game", "Catalog"], exclude: ["Golden"]),
        .testTarget(name: "CatalogTests", dependencies: ["Catalog"]),
        .testTarget(name: "WireTests", dependencies: ["Wire"], exclude: ["Golden"]),
        .testTarget(name: "PushPolicyTests", dependencies: ["PushPolicy", "Catalog"], exclude: ["Golden"]),
        .testTarget(name: "RangersTests", dependencies: ["rangers"]),
    ],
    swiftLanguageModes: [.v6]
)
