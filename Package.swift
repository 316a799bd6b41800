// swift-tools-version: 6.0
import PackageDescription

// Module layout: see README "Modules" (with where to look for each rule). Each module has one job and its own tests.
let package = Package(
    name: "EmojiRangers",
    // iOS 16.1: the first with ActivityKit's push updates, for an app that uses `Wire` and `RangersClient`.
    platforms: [.macOS(.v14), .iOS("16.1")],
    products: [
        .executable(name: "rangers", targets: ["rangers"]),
        // The libraries are static rather than automatic: `swift build --product` builds an automatic
        // library's package whole, a static one alone (CI checks that each does); an app links them as it would.
        // The HTTP API's client, generated from Sources/Server/openapi.yaml (docs/libraries.md, "The generated client").
        .library(name: "RangersClient", type: .static, targets: ["RangersClient"]),
        // The Live Activity's types exactly as the server encodes them, for the app (docs/libraries.md, "Using the types in your app").
        .library(name: "Wire", type: .static, targets: ["Wire"]),
        // Live Activity pushes over HTTP/2 for any Swift server (docs/libraries.md, "Sending pushes from your own server").
        .library(name: "APNs", type: .static, targets: ["APNs", "APNsCurl"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-crypto", "3.12.3"..<"5.0.0"),
        .package(url: "https://github.com/apple/swift-certificates", from: "1.21.1"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
        .package(url: "https://github.com/apple/swift-nio-http2", from: "1.46.0"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        // RangersClient: the generated code's runtime and its transport (URLSession, on Linux through FoundationNetworking).
        .package(url: "https://github.com/apple/swift-openapi-runtime", from: "1.13.4"),
        .package(url: "https://github.com/apple/swift-openapi-urlsession", from: "1.4.0"),
        // Tests only: reading openapi.yaml to hold it against the server.
        .package(url: "https://github.com/jpsim/Yams", "5.0.1"..<"7.0.0"),
    ],
    targets: [
        // What pushes to Apple devices are addressed with (tokens, push types, topics,
        // priorities, broadcast channels) and the small encodings they are made with:
        // what the APNs library shares with the game (Foundation only).
        .target(name: "PushVocabulary"),
        // The ids and small values every module passes around (Foundation only); re-exports PushVocabulary.
        .target(name: "Vocabulary", dependencies: ["PushVocabulary"]),
        // The pure, deterministic game: no I/O, no clock, no global randomness.
        .target(name: "Game", dependencies: ["Vocabulary"]),
        // Content/ on disk: loading, the string catalog, sounds, `content check`.
        .target(name: "Catalog", dependencies: ["Game"]),
        // The app's ActivityKit types and the APNs payloads; knows nothing of the game's rules.
        .target(name: "Wire"),
        // Every push rule: which push each Live Activity gets, when, at what priority, with
        // which alert; the one tick pipeline; queued pushes; the walkie-talkie. Sends nothing.
        .target(name: "PushPolicy", dependencies: ["Vocabulary", "Game", "Catalog", "Wire"]),
        // APNs semantics, independent of transport and of the game (no game module, not even
        // Vocabulary's ids): requests, provider tokens (JWT ES256), every response reason, retries.
        .target(
            name: "APNs",
            dependencies: [
                "PushVocabulary",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            ]
        ),
        // The HTTP API as its clients call it: types and a client generated from Sources/Server/openapi.yaml
        // (committed under Generated/, made again by scripts/generate-client.sh), and the bearer key.
        .target(
            name: "RangersClient",
            dependencies: [
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "OpenAPIURLSession", package: "swift-openapi-urlsession"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ],
            exclude: ["openapi-generator-config.yaml", "Generated/Stamp.txt"]
        ),
        // libcurl, found through pkg-config, and typed non-variadic wrappers around it.
        .systemLibrary(
            name: "CCurl",
            pkgConfig: "libcurl",
            providers: [.apt(["libcurl4-openssl-dev"])]
        ),
        .target(name: "CCurlShim", dependencies: ["CCurl"]),
        // zlib, with which the store keeps payloads, states and events compressed (`PresetDeflate`).
        .systemLibrary(
            name: "CZlib",
            pkgConfig: "zlib",
            providers: [.apt(["zlib1g-dev"])]
        ),
        // The HTTP/2 transport for APNs over one curl multi handle. No curl type leaves it.
        .target(name: "APNsCurl", dependencies: [
            "APNs", "CCurl", "CCurlShim", .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
        ]),
        // A local APNs over HTTP/2 + TLS that checks requests like Apple does: for tests and demos.
        .target(
            name: "APNsSimulator",
            dependencies: [
                "Vocabulary", "APNs",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOHTTP2", package: "swift-nio-http2"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // The storage seam: what the server stores and reads, as protocols grouped by
        // job, the values that cross it, `StoreError`, and the rules that decide, from
        // what an engine read, what to refuse and what to write. No engine type.
        .target(
            name: "Store",
            dependencies: [
                "Vocabulary", "Game", "PushPolicy", "CZlib",
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        // The SQLite engine through GRDB: schema migrations, records, the operations
        // and the invariants each holds in its one write transaction.
        .target(
            name: "StoreSQLite",
            dependencies: [
                "Vocabulary", "Game", "PushPolicy", "Store",
                .product(name: "GRDB", package: "GRDB.swift"),
                // SQLite's own C API, for the write and statement counters GRDB does not expose.
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
            ]
        ),
        // The PostgreSQL engine through PostgresNIO: for studios that run their own
        // database and for several nodes on one. Bound statements only.
        .target(
            name: "StorePostgres",
            dependencies: [
                "Vocabulary", "Game", "PushPolicy", "Store",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // What storage tests share: each engine on a fresh database (a PostgreSQL server
        // of the tests' own), fixtures, and operations only tests need, over the seam.
        .target(
            name: "StoreTestSupport",
            dependencies: [
                "Vocabulary", "Game", "PushPolicy", "Store", "StoreSQLite", "StorePostgres",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Tests/StoreTestSupport"
        ),
        // The live page: each phone's Live Activity drawn from the pushes it received,
        // the stream that keeps it current, and the signed links that open it.
        .target(
            name: "LiveView",
            dependencies: [
                "Vocabulary", "Game", "Catalog", "Wire", "Store", "Replay", "APNs",
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        // The game master's console: server-rendered pages, no script.
        .target(
            name: "ConsoleView",
            dependencies: ["Vocabulary", "Game", "Store", "Replay", .product(name: "Crypto", package: "swift-crypto")]
        ),
        // What browser tests share: finding Chromium and driving it over the DevTools protocol.
        .target(name: "BrowserTestSupport", path: "Tests/BrowserTestSupport"),
        // The long-running parts beside the HTTP API: the ticker, the dispatcher, the followers'
        // channel keeper, audio retention. Each on the narrow store protocol it uses; no HTTP.
        .target(
            name: "Services",
            dependencies: [
                "Vocabulary", "Game", "Catalog", "PushPolicy", "APNs", "Store",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        // HTTP routes, auth, configuration, and the one wiring of the whole application.
        .target(
            name: "Server",
            dependencies: [
                "Vocabulary", "Game", "Catalog", "Wire", "PushPolicy", "APNs", "APNsCurl", "APNsSimulator", "Store", "StoreSQLite",
                "StorePostgres", "LiveView", "ConsoleView", "Replay", "Services",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Metrics", package: "swift-metrics"),
            ],
            resources: [.copy("openapi.yaml")]
        ),
        // Saved sessions: play an adventure again and compare, its timeline, pushing it again.
        .target(
            name: "Replay",
            dependencies: [
                "Vocabulary", "Game", "Catalog", "Wire", "PushPolicy", "Store", "APNs",
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        .executableTarget(
            name: "rangers",
            dependencies: [
                "Vocabulary", "Game", "Catalog", "Wire", "PushPolicy", "APNs", "APNsCurl", "APNsSimulator", "Server", "Services",
                "Replay", "Store", "StoreSQLite", "RangersClient",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            ]
        ),
        .executableTarget(name: "APNsBench", dependencies: ["Vocabulary", "APNs", "APNsCurl"], path: "Benchmarks/APNsBench"),
        .executableTarget(
            name: "ServerLoadBench",
            dependencies: [
                "Vocabulary", "Game", "Catalog", "PushPolicy", "APNs", "APNsCurl", "APNsSimulator", "Store", "Server", "Services",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            path: "Benchmarks/ServerLoadBench"
        ),
        .executableTarget(
            name: "TickerCostBench",
            dependencies: [
                "Vocabulary", "Game", "Catalog", "PushPolicy", "Store", "Server", "Services",
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Benchmarks/TickerCostBench"
        ),
        .executableTarget(name: "PayloadBench", dependencies: ["Wire"], path: "Benchmarks/PayloadBench"),
        .executableTarget(
            name: "ConsoleDirectoryBench",
            dependencies: ["Vocabulary", "Game", "Store", "Server"],
            path: "Benchmarks/ConsoleDirectoryBench"
        ),
        .executableTarget(
            name: "HeldMemoryBench",
            dependencies: ["Vocabulary", "Game", "Catalog", "PushPolicy", "Store"],
            path: "Benchmarks/HeldMemoryBench"
        ),
        .executableTarget(
            name: "SimulationBench",
            dependencies: ["Game", "Catalog"],
            path: "Benchmarks/SimulationBench"
        ),
        .executableTarget(
            name: "ReplayBench",
            dependencies: ["Vocabulary", "Replay", "Game", "Catalog", "PushPolicy", "Store", "StoreSQLite"],
            path: "Benchmarks/ReplayBench"
        ),
        .testTarget(name: "PushVocabularyTests", dependencies: ["PushVocabulary"]),
        .testTarget(name: "VocabularyTests", dependencies: ["Vocabulary"]),
        .testTarget(name: "GameTests", dependencies: ["Vocabulary", "Game", "Catalog"], exclude: ["Golden"]),
        .testTarget(name: "CatalogTests", dependencies: ["Game", "Catalog"]),
        .testTarget(name: "WireTests", dependencies: ["Wire", "Vocabulary"], exclude: ["Golden"]),
        .testTarget(
            name: "APNsTests",
            dependencies: [
                "APNs", "PushVocabulary",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "MetricsTestKit", package: "swift-metrics"),
            ]
        ),
        .testTarget(
            name: "RangersClientTests",
            dependencies: ["RangersClient", .product(name: "Crypto", package: "swift-crypto")]
        ),
        // The examples in docs/libraries.md, as files that import only the library products, and the APNs simulator they are run against.
        .testTarget(name: "ReadmeExampleTests", dependencies: ["Wire", "APNs", "APNsCurl", "RangersClient", "APNsSimulator"]),
        .testTarget(name: "APNsCurlTests", dependencies: ["APNs", "APNsCurl", "APNsSimulator", "CCurl", "PushVocabulary"]),
        .testTarget(
            name: "APNsSimulatorTests",
            dependencies: [
                "Vocabulary", "APNsSimulator", "APNs",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOHTTP2", package: "swift-nio-http2"),
            ]
        ),
        .testTarget(
            name: "StoreSQLiteTests",
            dependencies: [
                "Vocabulary", "Game", "PushPolicy", "Store", "StoreSQLite", "StoreTestSupport",
                .product(name: "GRDB", package: "GRDB.swift"),
            ]
        ),
        // The store's rules, decided above the seam: no database.
        .testTarget(
            name: "StoreRulesTests",
            dependencies: ["Vocabulary", "Game", "Catalog", "PushPolicy", "Store"]
        ),
        // The storage seam's behaviour, each test on every engine.
        .testTarget(
            name: "StoreTests",
            dependencies: ["Vocabulary", "Game", "PushPolicy", "Store", "StoreTestSupport"]
        ),
        .testTarget(
            name: "StorePostgresTests",
            dependencies: [
                "Vocabulary", "Game", "Catalog", "Store", "StorePostgres", "StoreTestSupport",
                .product(name: "PostgresNIO", package: "postgres-nio"),
            ]
        ),
        .testTarget(
            name: "ServerTests",
            dependencies: [
                "Vocabulary", "Game", "Catalog", "PushPolicy", "APNs", "APNsCurl", "APNsSimulator", "Store",
                "StoreTestSupport", "Server", "Services", "Replay", "BrowserTestSupport",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Yams", package: "Yams"),
            ]
        ),
        // The services' rules over a real SQLite store, with pushes answered by an in-memory sender.
        .testTarget(
            name: "ServicesTests",
            dependencies: [
                "Vocabulary", "PushVocabulary", "Game", "Catalog", "PushPolicy", "APNs", "Store", "StoreTestSupport", "Services",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "MetricsTestKit", package: "swift-metrics"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        .testTarget(
            name: "PushPolicyTests",
            dependencies: ["Vocabulary", "Game", "Catalog", "Wire", "PushPolicy"],
            exclude: ["Golden"]
        ),
        .testTarget(
            name: "RangersTests",
            dependencies: [
                // Not imported: the tests run the built `rangers` binary, which must be built first.
                "rangers",
                "Vocabulary", "Replay", "Store", "StoreSQLite", "StoreTestSupport", "Catalog", "PushPolicy", "Game", "LiveView",
                "RangersClient",
                .product(name: "GRDB", package: "GRDB.swift"),
            ]
        ),
        .testTarget(
            name: "LiveViewTests",
            dependencies: ["Vocabulary", "Game", "Catalog", "Wire", "Store", "StoreTestSupport", "Replay", "LiveView"]
        ),
        .testTarget(
            name: "ReplayTests",
            dependencies: [
                "Vocabulary", "Replay", "Game", "Catalog", "Store", "StoreSQLite", "PushPolicy", "Wire", "APNs",
                "APNsCurl", "APNsSimulator", "BrowserTestSupport",
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            exclude: ["Golden"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
