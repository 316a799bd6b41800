import Foundation
import RangersClient
import StoreTestSupport
import Testing
import Vocabulary

/// `rangers serve` pointed at an APNs whose channel management refuses the app
/// (`rangers apns-sim --without-broadcast`: `FeatureNotEnabled`, as for an app
/// without the broadcast capability). Asked every 2 s, 15 s would take 8
/// listings and write two lines each; the keeper backs off instead, says so
/// once, shows it on the readiness route, and a follower on iOS 18 that names
/// its device follows per token meanwhile.
@Suite struct ChannelRefusalProcessTests {
    static let gameMasterKey = String(repeating: "g", count: 32)

    @Test func aRefusedChannelManagementIsNotALoopAndFollowersFallBackToTheirDevices() async throws {
        let directory = try ScratchFiles.newDirectory()
        let simulator = try APNsSimProcess.start(keyDirectory: directory.appendingPathComponent("keys"),
                                                 arguments: ["--without-broadcast", SampleApp.bundleID])
        let database = try await StoreEngine.sqlite.database()
        let port = 20_000 + Int.random(in: 0..<20_000)
        let api = ServerAPI(base: "http://127.0.0.1:\(port)")
        let log = directory.appendingPathComponent("serve.log")
        let started = ContinuousClock.now
        let server = try await ServeProcess.start(
            database: database, port: port, gameMasterKey: Self.gameMasterKey, api: api,
            arguments: ["--apns", "apple", "--environment", "sandbox"] + simulator.connection, log: log)

        // A followable adventure, and a player outside its party with a device.
        var keys: [String] = []
        for (name, hero) in zip(["Ana", "Bao"], AdventureChecks.heroes) {
            let player = try await api.client().createPlayer(body: .json(.init(name: name))).created.body.json
            _ = try await api.client(player.apiKey).pickHeroes(body: .json(.init(heroes: [hero]))).ok
            keys.append(player.apiKey)
        }
        let party = try await api.client(keys[0]).createParty(body: .json(.init(name: "Refused", hero: AdventureChecks.heroes[0])))
            .created.body.json
        _ = try await api.client(keys[1]).joinParty(body: .json(.init(inviteCode: party.inviteCode, hero: AdventureChecks.heroes[1]))).ok
        let adventure = try await api.client(Self.gameMasterKey).startAdventure(body: .json(.init(
            partyID: party.id, route: .whisperingWoods, tickInterval: 1, timeLimit: 120, seed: 7, followable: true))).created.body.json
        let followCode = try #require(adventure.followCode)
        let sam = try await api.client().createPlayer(body: .json(.init(name: "Sam"))).created.body.json
        _ = try await api.client(sam.apiKey).registerPushToStartToken(
            path: .init(deviceID: "sams-phone"), body: .json(.init(pushToken: String(repeating: "5a", count: 32), locale: "en-US"))).ok
        let following = try await api.client(sam.apiKey).followAdventure(path: .init(adventureID: adventure.id), body: .json(.init(
            value1: .init(followCode: followCode, locale: "en-US", broadcastChannel: true, deviceID: "sams-phone")))).created.body.json
        #expect(following.delivery == .token)
        #expect(following.pushToStartQueued == true)
        #expect(following.channelUnavailable?.contains("FeatureNotEnabled") == true, "\(following)")

        // 15 s after the start: at a 2 s interval doubling per failure, passes at 0, 4 and 12 s.
        try await Task.sleep(until: started + .seconds(15))
        let readiness = try await api.client().readiness().ok.body.json
        let trouble = try #require(readiness.troubles.first { $0.loop == "channelKeeper" }, "\(readiness)")
        #expect(trouble.reason.contains("FeatureNotEnabled"))
        #expect((1...4).contains(trouble.failures), "\(trouble.failures) passes in 15 s")

        #expect(try await server.terminate() == 0)
        let summary = simulator.stop()
        let text = try String(contentsOf: log, encoding: .utf8)
        let keeperLines = text.split(separator: "\n").filter { $0.contains("cannot look after the followers' channels") }
        #expect(keeperLines.count == 1, "said once:\n\(keeperLines.joined(separator: "\n"))")
        // The keeper's listings and the follow's one make, each refused.
        let rejected = try #require(summary.firstMatch(of: /rejected: (\d+)/).flatMap { Int($0.1) }, "\(summary)")
        #expect((2...6).contains(rejected), "\(rejected) refused channel requests in 15 s:\n\(summary)")
    }
}
