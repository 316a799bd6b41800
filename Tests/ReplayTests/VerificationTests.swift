import Catalog
import Foundation
import Game
import PushPolicy
import Replay
import Store
import Testing
import Vocabulary

@Suite struct VerificationTests {
    func session(_ store: any RangersStore, _ id: AdventureID) async throws -> SavedSession {
        try SavedSession(try await store.record(of: id), content: try ContentSnapshot(of: ReplayFixture.loaded))
    }

    @Test func aStoredAdventureReplaysAsIdentical() async throws {
        let (_, store, id) = try await ReplayFixture.recordedAdventure()
        let stored = try await store.adventure(id)
        let saved = try await session(store, id)
        let report = try Verifier.verify(saved, with: ReplayFixture.content)
        #expect(report.isIdentical, "\(String(describing: report.divergence))")
        #expect(report.ticks == stored.lastTick)
        #expect(stored.status != .running)
        #expect(report.events == (try await store.events(of: id)).count)
        #expect(report.pushes == (try await store.outbox(of: id)).count)
        #expect(report.pushes > 0)
        // Both potions were applied, so the commands took part in the replay.
        #expect(saved.commands.map(\.tick) == [5, 9])
    }

    @Test func oneEditedEventIsReportedAtItsTick() async throws {
        let (path, store, id) = try await ReplayFixture.recordedAdventure()
        let events = try await store.events(of: id)
        let target = try #require(events.first { $0.tick > 20 && $0.position == 1 })
        let edited = GameEvent.lootFound(hero: "egghead", rarity: .legendary)
        #expect(target.event != edited)
        let json = String(decoding: try JSONEncoder().encode(edited), as: UTF8.self)
        // The tick's row holds its events one per line (`TickEventsText`): the second line replaced.
        var texts = events.filter { $0.tick == target.tick }
            .map { CanonicalJSON.text(of: $0.event) }
        texts[1] = json
        let changed = try ReplayFixture.edit(path, "UPDATE tickEvents SET events = ? WHERE adventure = ? AND tick = ?",
                                             [TickEventsText.text(of: texts), id.rawValue, target.tick])
        #expect(changed == 1)

        let report = try Verifier.verify(try await session(store, id), with: ReplayFixture.content)
        let divergence = try #require(report.divergence)
        #expect(divergence.tick == target.tick)
        #expect(divergence.difference == .event(position: 1, saved: edited, replayed: target.event))
    }

    @Test func oneEditedCommandIsReportedAtTheTickItChanged() async throws {
        let (path, store, id) = try await ReplayFixture.recordedAdventure()
        // The potion of tick 5 moved to tick 7: the log still has it at 5.
        let changed = try ReplayFixture.edit(path, "UPDATE command SET tick = 7 WHERE adventure = ? AND tick = 5", [id.rawValue])
        #expect(changed == 1)
        let logged = try await store.events(of: id).filter { $0.tick == 5 }
        let potion = try #require(logged.first { [.potionUsed, .potionRejected].contains($0.event.kind) })

        let report = try Verifier.verify(try await session(store, id), with: ReplayFixture.content)
        let divergence = try #require(report.divergence)
        #expect(divergence.tick == 5)
        guard case .event(let position, let saved, _) = divergence.difference else {
            Issue.record("expected an event difference, got \(divergence.difference)")
            return
        }
        #expect(position == potion.position)
        #expect(saved == potion.event)
    }

    @Test func aLogCutShortIsReportedWhereItStops() async throws {
        let (path, store, id) = try await ReplayFixture.recordedAdventure()
        let last = try await store.adventure(id).lastTick
        _ = try ReplayFixture.edit(path, "DELETE FROM tickEvents WHERE adventure = ? AND tick = ?", [id.rawValue, last])
        let report = try Verifier.verify(try await session(store, id), with: ReplayFixture.content)
        #expect(report.divergence?.tick == last)
    }

    @Test func changedContentIsReportedAsSuchNotAsADivergence() async throws {
        let (_, store, id) = try await ReplayFixture.recordedAdventure()
        let saved = try await session(store, id)

        // The same Content/ with one rule changed, as a designer would change it.
        let copy = try ReplayFixture.scratchDirectory().appendingPathComponent("Content")
        try FileManager.default.copyItem(at: ReplayFixture.contentDirectory, to: copy)
        let rulesFile = copy.appendingPathComponent("rules.json")
        let rules = try String(contentsOf: rulesFile, encoding: .utf8)
        try rules.replacingOccurrences(of: "\"startingPotions\": 3", with: "\"startingPotions\": 4")
            .write(to: rulesFile, atomically: true, encoding: .utf8)
        let changed = try LoadedContent.load(from: copy, requiring: PushPolicy.contentRequirements)
        #expect(changed.version != ReplayFixture.loaded.version)

        #expect(throws: VerificationError.contentChanged(recorded: ReplayFixture.loaded.version, current: changed.version)) {
            try Verifier.verify(saved, with: ReplayContent(changed))
        }
    }

    @Test func theSnapshotHashIsTheContentVersion() throws {
        let snapshot = try ContentSnapshot(of: ReplayFixture.loaded)
        #expect(snapshot.version == ReplayFixture.loaded.version)
        var edited = snapshot
        edited.rules = edited.rules.replacingOccurrences(of: "3", with: "4")
        #expect(edited.version != snapshot.version)
    }
}

@Suite struct EventTextTests {
    /// Every kind of event, one player id with characters JSON must escape.
    static let everyKind: [GameEvent] = [
        .damageDealt(hero: "egghead", boss: "thorn-wolf", amount: 12, blocked: 3),
        .criticalHit(hero: "spouty", boss: "kraken", amount: 80, blocked: 0),
        .areaAttack(boss: "old-treant"),
        .damageTaken(hero: "power-panda", boss: "old-treant", amount: 7),
        .smallHeal(healer: "spouty", hero: "egghead", amount: 15),
        .lootFound(hero: "egghead", rarity: .legendary),
        .heroKnockedDown(hero: "egghead", boss: "goblin-chief"),
        .potionUsed(player: "ana \"the brave\" / 安娜\n", hero: "egghead", amount: 90),
        .heroRevived(hero: "egghead"),
        .potionRejected(player: "bao", hero: "spouty", reason: .heroAtFullHealth),
        .bossEnraged(boss: "goblin-chief"),
        .bossHealed(boss: "old-treant", amount: 300),
        .bossShielded(boss: "kraken", amount: 120),
        .bossDefeated(boss: "thorn-wolf", hero: "spouty", rank: .minion),
        .nextBossAppears(boss: "goblin-chief"),
        .victory(boss: "kraken"),
        .partyWiped(boss: "kraken"),
        .timeLimitReached(boss: "kraken"),
        .adventureEndedByGameMaster(boss: "kraken"),
    ]

    /// The replay compares its events with the saved text as text: the text it
    /// writes must be the store's (JSONEncoder, sorted keys) byte for byte.
    @Test func eventTextIsWhatJSONEncoderWrites() throws {
        #expect(Set(Self.everyKind.map(\.kind)).count == GameEvent.Kind.allCases.count)
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        for event in Self.everyKind {
            let expected = String(decoding: try encoder.encode(event), as: UTF8.self)
            let written = SessionEvent(tick: 1, event: event)
            #expect(written.json == expected)
            #expect(try written.decoded() == event)
        }
    }

    /// In a file an event is "tick text" with the quotes swapped; it reads back exactly,
    /// apostrophes in a player's id included.
    @Test func eventLinesRoundTripThroughASessionFile() throws {
        let events = Self.everyKind.map { SessionEvent(tick: 3, event: $0) }
            + [SessionEvent(tick: 4, event: .potionUsed(player: "o'brien", hero: "egghead", amount: 1))]
        let data = try JSONEncoder().encode(events)
        #expect(try JSONDecoder().decode([SessionEvent].self, from: data) == events)
        #expect(String(decoding: data, as: UTF8.self).contains(#""3 {'boss':'old-treant','type':'areaAttack'}""#))
        #expect(throws: DecodingError.self) { try JSONDecoder().decode([SessionEvent].self, from: Data(#"["x {}"]"#.utf8)) }
    }
}
