import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import LiveView
import RangersClient
import StoreTestSupport
import Testing
import Vocabulary

/// `rangers serve` as a process: it refuses bad settings by name, and otherwise
/// answers HTTP and stops cleanly on SIGTERM.
@Suite struct ServeCommandTests {
    static let gameMasterKey = "0123456789abcdef0123456789abcdef"

    func scratchDatabase() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("serve-\(UUID().uuidString).sqlite")
    }

    @Test func badSettingsAreRefusedByName() async throws {
        let database = scratchDatabase()
        let short = try await RangersProcess.run(["serve", "--apns", "simulator", "--db", database.path, "--port", "0"],
                                                 environment: ["RANGERS_GAME_MASTER_KEY": "short"])
        #expect(short.status == 2)
        #expect(short.stderr.contains("gameMasterKey ($RANGERS_GAME_MASTER_KEY): must be at least 32 characters"))
        #expect(!short.stderr.contains("short\n"))
        let port = try await RangersProcess.run(["serve", "--apns", "simulator", "--db", database.path], environment: [
            "RANGERS_GAME_MASTER_KEY": Self.gameMasterKey, "RANGERS_PORT": "eighty"])
        #expect(port.status == 2)
        #expect(port.stderr.contains("RANGERS_PORT"))
        let mode = try await RangersProcess.run(["serve", "--db", database.path, "--apns", "carrier-pigeon"],
                                                environment: ["RANGERS_GAME_MASTER_KEY": Self.gameMasterKey])
        #expect(mode.status == 2)
        #expect(mode.stderr.contains("must be apple or simulator"))
        let key = ["RANGERS_GAME_MASTER_KEY": Self.gameMasterKey]
        for (variable, value, message) in [
            ("RANGERS_CHANNEL_LIMIT", "20000", "followers.channelLimit ($RANGERS_CHANNEL_LIMIT): must be 0…10000"),
            ("RANGERS_CHANNEL_LIMIT", "many", "RANGERS_CHANNEL_LIMIT: 'many' is not a whole number"),
            ("RANGERS_TOKEN_FOLLOWERS_PER_ADVENTURE", "-1", "($RANGERS_TOKEN_FOLLOWERS_PER_ADVENTURE): must be 0…10000"),
            ("RANGERS_CHANNEL_STORAGE", "forever", "RANGERS_CHANNEL_STORAGE: 'forever' must be most-recent or no-storage"),
            ("RANGERS_DELETE_UNKNOWN_CHANNELS", "maybe", "RANGERS_DELETE_UNKNOWN_CHANNELS: 'maybe' must be on or off"),
        ] {
            let refused = try await RangersProcess.run(["serve", "--apns", "simulator", "--db", database.path, "--port", "0"],
                                                       environment: key.merging([variable: value]) { $1 })
            #expect(refused.status == 2, "\(variable)=\(value)")
            #expect(refused.stderr.contains(message), "\(refused.stderr)")
        }
        let secret = try await RangersProcess.run(["serve", "--apns", "simulator", "--db", database.path, "--port", "0"], environment: [
            "RANGERS_GAME_MASTER_KEY": Self.gameMasterKey, "RANGERS_LIVE_LINK_SECRET": "a-secret-too-short"])
        #expect(secret.status == 2)
        #expect(secret.stderr.contains("liveLinkSecret ($RANGERS_LIVE_LINK_SECRET): must be at least 32 characters"))
        #expect(!(secret.stderr + secret.stdout).contains("a-secret-too-short"), "the secret is never shown")
    }

    /// The live-page links' secret from the environment signs the links the
    /// server hands out; it never appears in what the server prints.
    @Test func liveLinksAreSignedWithTheConfiguredSecretWhichIsNeverPrinted() async throws {
        let database = try await StoreEngine.sqlite.database()
        let port = 20_000 + Int.random(in: 0..<20_000)
        let api = ServerAPI(base: "http://127.0.0.1:\(port)")
        let secret = "serve-test-live-link-secret-\(UUID().uuidString)"
        let log = try ScratchFiles.newDirectory().appendingPathComponent("serve.log")
        let server = try await ServeProcess.start(database: database, port: port, gameMasterKey: Self.gameMasterKey, api: api,
                                                  environment: ["RANGERS_LIVE_LINK_SECRET": secret], log: log)
        let adventure = try await AdventureChecks.start(through: api, gameMasterKey: Self.gameMasterKey, label: "live", seed: 3,
                                                        timeLimit: 60)
        let path = try await AdventureChecks.liveLink(adventure.id, key: Self.gameMasterKey, through: api).path
        let token = String(try #require(path.split(separator: "=").last))
        // Anyone with the secret can check the link; nothing else is needed.
        let grant = try LiveLinkSigner(secret: secret).grant(from: token, for: AdventureID(adventure.id),
                                                               at: Int(Date().timeIntervalSince1970))
        #expect(grant.viewer == .gameMaster)
        let (page, response) = try await URLSession.shared.data(from: URL(string: api.base + path)!)
        #expect((response as? HTTPURLResponse)?.statusCode == 200)
        #expect(String(decoding: page, as: UTF8.self).contains("<title>Live · adventure \(adventure.id)</title>"))
        #expect(try await server.terminate() == 0)
        let printed = try String(contentsOf: log, encoding: .utf8)
        #expect(printed.contains("Listening on"))
        #expect(!printed.contains(secret), "the secret is never printed")
        #expect(!printed.contains("Live-page links: signed with a secret made for this process"))
    }

    /// A node pushes to Apple's APNs or to the simulator only when told which: without a
    /// choice it starts nothing and creates no database; the simulator is said aloud.
    @Test func whereThePushesGoMustBeSaid() async throws {
        let database = scratchDatabase()
        let key = ["RANGERS_GAME_MASTER_KEY": Self.gameMasterKey]
        let none = try await RangersProcess.run(["serve", "--db", database.path, "--port", "0"], environment: key)
        #expect(none.status == 2)
        let lines = none.stderr.split(separator: "\n")
        #expect(lines.count == 1, "one line: \(none.stderr)")
        #expect(none.stderr.contains("--apns apple") && none.stderr.contains("--apns simulator"), "\(none.stderr)")
        #expect(!FileManager.default.fileExists(atPath: database.path), "nothing is created")
        // Apple's APNs needs its environment said too: sandbox tokens fail on production hosts and the reverse.
        let keyFile = try ScratchFiles.newDirectory().appendingPathComponent("key.p8")
        let noEnvironment = try await RangersProcess.run(
            ["serve", "--apns", "apple", "--db", database.path, "--port", "0", "--key-file", keyFile.path, "--key-id", "K",
             "--team-id", "T"], environment: key)
        #expect(noEnvironment.status == 2)
        #expect(noEnvironment.stderr.contains("no APNs environment: pass --environment sandbox|production or set APNS_ENVIRONMENT"))
        let wrongEnvironment = try await RangersProcess.run(["serve", "--db", database.path, "--port", "0"],
                                                            environment: key.merging(["RANGERS_APNS": "apple", "APNS_ENVIRONMENT": "staging"]) { $1 })
        #expect(wrongEnvironment.status == 2)
        #expect(wrongEnvironment.stderr.contains("must be sandbox or production, not 'staging'"))
        #expect(!FileManager.default.fileExists(atPath: database.path), "nothing is created")

        let started = try await StoreEngine.sqlite.database()
        let port = 20_000 + Int.random(in: 0..<20_000)
        let api = ServerAPI(base: "http://127.0.0.1:\(port)")
        let log = try ScratchFiles.newDirectory().appendingPathComponent("serve.log")
        let server = try await ServeProcess.start(database: started, port: port, gameMasterKey: Self.gameMasterKey, api: api,
                                                  environment: ["RANGERS_APNS": "simulator"], log: log)
        #expect(try await api.health().apns == .simulator)
        let (metrics, _) = try await URLSession.shared.data(from: URL(string: api.base + "/metrics")!)
        #expect(String(decoding: metrics, as: UTF8.self).contains("rangers_apns_simulator 1"))
        #expect(try await server.terminate() == 0)
        #expect(try String(contentsOf: log, encoding: .utf8).contains("APNs: THE SIMULATOR inside this process"))
    }

    @Test func servesHTTPAndStopsOnSIGTERM() async throws {
        let database = try await StoreEngine.sqlite.database()
        let port = 20_000 + Int.random(in: 0..<20_000)
        let api = ServerAPI(base: "http://127.0.0.1:\(port)")
        let server = try await ServeProcess.start(database: database, port: port, gameMasterKey: Self.gameMasterKey, api: api)
        #expect(try await api.health().status == .ok)
        #expect(try await server.terminate() == 0, "exits 0 after SIGTERM")
    }
}
