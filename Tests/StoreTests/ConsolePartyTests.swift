import Foundation
import Game
import Store
import StoreTestSupport
import Testing
import Vocabulary

/// What the console reads of parties, on each engine: the directory in one
/// order, a page at a time, found by part of a name or the invite code; a
/// party's players with their phones, its activities and its walkie-talkie.
@Suite(.closesStores) struct ConsolePartyTests {
    @Test(arguments: StoreEngine.available) func theDirectoryIsPagedByNameAndFoundByNameOrInviteCode(engine: StoreEngine) async throws {
        let store = try await engine.database().open()
        let trio = try await Trio.make(in: store)
        // Byte order: capitals before small letters, then other scripts; the same on both engines.
        for name in ["beta", "Alpha", "Đội Rồng", "용사들", "alpha wolves", "Zeta"] {
            try await store.createParty(name: name, by: trio.players[0].id, hero: trio.heroes[0])
        }
        let expected = ["Alpha", "Rangers", "Zeta", "alpha wolves", "beta", "Đội Rồng", "용사들"]
        var seen: [String] = []
        var after: PartyDirectoryCursor?
        while true {
            let page = try await store.partyDirectory(search: nil, after: after, limit: 3)
            seen += page.map(\.party.name)
            guard page.count == 3 else { break }
            after = page.last?.cursor
        }
        #expect(seen == expected)

        let rangers = try #require(try await store.partyDirectory(search: nil, after: nil, limit: 10).first { $0.party.id == trio.party.id })
        #expect(rangers.memberCount == 3 && rangers.runningAdventure == nil)
        #expect(try await store.partyDirectory(search: PartySearch("ALPHA"), after: nil, limit: 10).map(\.party.name) == ["Alpha", "alpha wolves"])
        #expect(try await store.partyDirectory(search: PartySearch("Rồng"), after: nil, limit: 10).map(\.party.name) == ["Đội Rồng"])
        let code = trio.party.inviteCode.rawValue
        let typed = code.lowercased().prefix(4) + "-" + code.lowercased().suffix(4)
        #expect(try await store.partyDirectory(search: PartySearch(String(typed)), after: nil, limit: 10).map(\.party.id) == [trio.party.id])
        #expect(try await store.partyDirectory(search: PartySearch("nothing like it"), after: nil, limit: 10).isEmpty)
        #expect(PartySearch("   ") == nil)

        let adventure = try await trio.startAdventure()
        let listed = try await store.partyDirectory(search: PartySearch("Rangers"), after: nil, limit: 10)
        #expect(listed.map(\.runningAdventure) == [adventure.id])
    }

    @Test(arguments: StoreEngine.available) func aPartysPlayersPhonesActivitiesAndWalkieTalkie(engine: StoreEngine) async throws {
        let store = try await engine.database().open()
        let trio = try await Trio.make(in: store)
        try await store.registerPushToStartToken(deviceID: "phone-ana", player: trio.players[0].id, token: Tokens.make(1), locale: "vi-VN")
        try await store.registerPushToStartToken(deviceID: "phone-bao", player: trio.players[1].id, token: Tokens.make(2), locale: "ko-KR")
        let players = try await store.consolePlayers(trio.players.map(\.id) + [PlayerID("nobody")])
        #expect(players.map(\.name) == ["Ana", "Bao", "Chae"])
        #expect(players.map { $0.phones.map(\.device.rawValue) } == [["phone-ana"], ["phone-bao"], []])
        #expect(players[0].phones.first?.locale == "vi-VN" && players[0].phones.first?.pushToStartRegistered == true)

        #expect(try await store.consoleWalkieTalkie(of: trio.party.id)?.listening == [])
        let adventure = try await trio.startAdventure()
        let activities = try await trio.registerActivities(for: adventure.id)
        let shown = try await store.consoleActivities(of: adventure.id)
        #expect(shown.map(\.id) == activities)
        #expect(shown.map(\.hero) == trio.heroes.map(Optional.some))
        #expect(shown.allSatisfy { $0.status == .active && $0.tokenInvalidReason == nil })

        // APNs calls the first activity's token invalid: the console says why.
        try await store.playNextTick(of: adventure.id) { _ in activities.map { update($0, tick: 1) } }
        let claimed = try await store.claimOutbox(limit: 10)
        let toFirst = try #require(claimed.first { $0.message.target == .liveActivity(activities[0]) })
        try await store.recordTokenInvalid(toFirst, status: 410, reason: "Unregistered", since: nil)
        #expect(try await store.consoleActivities(of: adventure.id).map(\.tokenInvalidReason) == ["Unregistered", nil, nil])

        // The delivery health counts the answer and the token over the window, and nothing before it.
        let toSecond = try #require(claimed.first { $0.message.target == .liveActivity(activities[1]) })
        try await store.recordDelivered(toSecond, apnsID: "apns-2", attempts: 2)
        let health = try await store.deliveryHealth(since: Date().addingTimeInterval(-3600))
        #expect(health.answers.contains(DeliveryHealthReading.Answers(status: 410, reason: "Unregistered", count: 1)))
        #expect(health.answers.contains(DeliveryHealthReading.Answers(status: 200, reason: nil, count: 1)))
        #expect(health.tokensInvalidated == 1 && health.retried == 1 && health.channelsInUse == 0)
        let later = try await store.deliveryHealth(since: Date().addingTimeInterval(60))
        #expect(later.answers.isEmpty && later.tokensInvalidated == 0 && later.retried == 0)
    }
}
