import Foundation
@testable import Server
import Testing

@Suite struct ConfigurationTests {
    private func valid() -> ServerConfiguration {
        ServerConfiguration(gameMasterKey: TestServer.gameMasterKey, apns: .simulator, contentDirectory: TestServer.contentDirectory)
    }

    @Test func theDefaultsWithAKeyAreValid() {
        #expect(valid().problems == [])
    }

    /// A lease is renewed once past half its time: the ticker looks at its leases
    /// every second, or every quarter of a shorter lease.
    @Test func theTickerKeepsItsLeasesWellWithinTheirTime() {
        var configuration = valid()
        #expect(configuration.tickerWithinLease.leaseUpkeep == .seconds(1))
        configuration.leaseSeconds = 2
        #expect(configuration.tickerWithinLease.leaseUpkeep == .milliseconds(500))
        configuration.ticker.leaseUpkeep = .milliseconds(100)
        #expect(configuration.tickerWithinLease.leaseUpkeep == .milliseconds(100))
    }

    @Test func eachBadSettingIsNamed() {
        let cases: [(String, (inout ServerConfiguration) -> Void)] = [
            ("gameMasterKey", { $0.gameMasterKey = "short" }),
            ("gameMasterKey", { $0.gameMasterKey = "rk_" + String(repeating: "a", count: 40) }),
            ("gameMasterKey", { $0.gameMasterKey = String(repeating: "a", count: 20) + " " + String(repeating: "b", count: 20) }),
            ("port", { $0.port = 70000 }),
            ("host", { $0.host = "" }),
            ("databasePath", { $0.databasePath = " " }),
            ("contentDirectory", { $0.contentDirectory = URL(fileURLWithPath: "/no/such/folder") }),
            ("bundleID", { $0.bundleID = "has spaces" }),
            ("bundleID", { $0.bundleID = "com.example.app.push-type.liveactivity" }),
            ("pushPolicy", { $0.pushPolicy.routineSpacing = 0 }),
            ("maximumRequestBodyBytes", { $0.maximumRequestBodyBytes = 10 }),
        ]
        for (setting, breakIt) in cases {
            var configuration = valid()
            breakIt(&configuration)
            #expect(configuration.problems.map(\.setting) == [setting])
            #expect(throws: InvalidConfiguration.self) { try configuration.validate() }
        }
    }

    @Test func problemsNeverQuoteTheGameMasterKey() {
        var configuration = valid()
        configuration.gameMasterKey = "rk_secret-that-must-not-show"
        let text = configuration.problems.map(\.description).joined()
        #expect(!text.isEmpty && !text.contains("secret-that-must-not-show"))
    }

    @Test func openingRefusesContentThatFailsTheCheck() async throws {
        let empty = FileManager.default.temporaryDirectory.appendingPathComponent("empty-content-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: empty) }
        var configuration = valid()
        configuration.contentDirectory = empty
        configuration.databasePath = empty.appendingPathComponent("db.sqlite").path
        await #expect {
            _ = try await ServerResources.open(configuration)
        } throws: { error in
            (error as? InvalidConfiguration)?.problems.map(\.setting) == ["contentDirectory"]
        }
        #expect(!FileManager.default.fileExists(atPath: configuration.databasePath), "no database made for a server that will not start")
    }
}

@Suite struct CatalogLanguageTests {
    @Test(arguments: [
        ("en-US", "en"), ("en", "en"), ("vi-VN", "vi"), ("vi", "vi"), ("ko", "ko"), ("ko_KR", "ko"),
        ("zh-Hans-CN", "zh-Hans"), ("zh_Hans_SG", "zh-Hans"), ("zh-CN", "zh-Hans"), ("zh", "zh-Hans"),
        ("zh-Hant-TW", "en"), ("zh-TW", "en"), ("fr-FR", "en"), ("de", "en"), ("VI-vn", "vi"), ("es-419", "en"),
    ])
    func appLocalesMapToCatalogLanguages(locale: String, language: String) {
        #expect(CatalogLanguage.forLocale(locale) == language)
    }

    @Test(arguments: ["", "e", "en US", "😀", "1234", "en-US; DROP TABLE", String(repeating: "a", count: 36),
                      "-en", "en-", "en--US", "engl-US", "en-abcdefghi", "en-US\n"])
    func whatIsNotALanguageTagIsRefused(locale: String) {
        #expect(CatalogLanguage.forLocale(locale) == nil)
    }
}

@Suite struct OperationsTests {
    @Test func healthSaysTheDatabaseAnswers() async throws {
        let server = try await TestServer()
        try await server.test { api in
            let reply = try await api.send(.get, "/healthz")
            #expect(reply.status == 200)
            #expect(reply.json["status"].string == "ok")
            #expect((reply.json["migrations"].int ?? 0) > 0)
        }
    }

    /// A node on the simulator says so in `/healthz` and in a metric an operator can alert on;
    /// one on Apple's APNs says which hosts.
    @Test(arguments: [APNsEndpointKind.simulator, .production, .sandbox, .custom])
    func healthAndMetricsSayWherePushesGo(apns: APNsEndpointKind) async throws {
        let server = try await TestServer(apns: apns)
        try await server.test { api in
            #expect(try await api.send(.get, "/healthz").json["apns"].string == apns.rawValue)
            let metrics = try await api.send(.get, "/metrics").text
            #expect(metrics.contains("rangers_apns_simulator \(apns == .simulator ? 1 : 0)"), "\(metrics)")
        }
    }

    /// Ready while the database answers and APNs answers pushes; a loop in
    /// trouble that does not stop the node's work is listed, and APNs answering
    /// "try later" makes the node unready, saying why, with Retry-After.
    @Test func readinessSaysWhetherTheNodeCanWorkAndWhyNot() async throws {
        let server = try await TestServer()
        try await server.test { api in
            let ready = try await api.send(.get, "/readyz")
            #expect(ready.status == 200)
            #expect(ready.json["status"].string == "ready")
            #expect((0..<3).map { ready.json["checks"][$0]["name"].string } == ["database", "heartbeat", "apns"])
            #expect((0..<3).allSatisfy { ready.json["checks"][$0]["ok"] == .bool(true) })

            _ = server.resources.serviceHealth.failed("channelKeeper", reason: "APNs refused: FeatureNotEnabled", at: TestServer.startTime)
            let troubled = try await api.send(.get, "/readyz")
            #expect(troubled.status == 200, "the keeper's trouble does not stop the node's work")
            #expect(troubled.json["troubles"][0]["reason"].string == "APNs refused: FeatureNotEnabled")

            server.resources.deliveryHealth.record(.retryLater(at: TestServer.startTime, reason: "503 ServiceUnavailable"),
                                                   at: TestServer.startTime)
            let unready = try await api.send(.get, "/readyz")
            #expect(unready.status == 503)
            #expect(unready.headers[.retryAfter] == "5")
            #expect(unready.json["error"].string == "unavailable")
            #expect(unready.json["message"].string?.hasPrefix("not ready: apns: APNs has answered try later") == true,
                    "\(unready.text)")
            // Alive all the same.
            #expect(try await api.send(.get, "/healthz").status == 200)
        }
    }

    @Test func metricsCountRequestsByRouteTemplateInTheApplicationsOwnRegistry() async throws {
        let server = try await TestServer()
        try await server.test { api in
            for name in ["Ana", "Bao"] { _ = try await api.send(.post, "/v1/players", body: #"{"name": "\#(name)"}"#) }
            _ = try await api.send(.get, "/v1/parties/some-id", key: "wrong")
            let metrics = try await api.send(.get, "/metrics")
            #expect(metrics.status == 200)
            #expect(metrics.headers[.contentType]?.hasPrefix("text/plain") == true)
            #expect(metrics.text.contains(#"rangers_http_requests_total{method="POST",route="/v1/players",status="201"} 2"#))
            #expect(metrics.text.contains(#"rangers_http_requests_total{method="GET",route="/v1/parties/{partyID}",status="401"} 1"#))
            #expect(!metrics.text.contains("some-id"), "ids in paths do not become labels")
        }
        // A second application in the same process starts from zero: no global registry.
        let other = try await TestServer()
        try await other.test { api in
            let metrics = try await api.send(.get, "/metrics")
            #expect(!metrics.text.contains(#"route="/v1/players""#))
        }
    }
}

/// The README's table of `rangers serve`'s settings is the one `ServeSettings` declares.
@Test func readmeShowsTheServeSettingsAsDeclared() throws {
    let readme = TestServer.repository.appendingPathComponent("README.md")
    let text = try String(contentsOf: readme, encoding: .utf8)
    if !text.contains(ServeSettings.markdownTable) {
        // The table to paste, whole, where a reader can take it from.
        let expected = FileManager.default.temporaryDirectory.appendingPathComponent("serve-settings-table.md")
        try ServeSettings.markdownTable.write(to: expected, atomically: true, encoding: .utf8)
        Issue.record("README.md must contain the table in \(expected.path)")
    }
    let variables = ServeSettings.all.map(\.variable)
    #expect(Set(variables).count == variables.count, "each variable declared once")
}
