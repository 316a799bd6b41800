import Catalog
import Foundation
import Game
import Store
import Testing
import Vocabulary

@Suite struct StoredGameTextTests {
    /// Every tick of three adventures over the shipped content, with players named
    /// as the server names them (UUIDs): each state and each tick's events in the
    /// canonical JSON the store is handed.
    private static let ticks: [(state: String, events: String)] = {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        guard let content = try? LoadedContent.load(from: root.appendingPathComponent("Content")).game else { return [] }
        let player = { PlayerID(UUID().uuidString.lowercased()) }
        let parties: [(RouteID, [PartyMember])] = [
            ("whispering-woods", [PartyMember(player: player(), hero: "power-panda"), PartyMember(player: player(), hero: "egghead"),
                                  PartyMember(player: player(), hero: "spouty")]),
            ("haunted-keep", [PartyMember(player: player(), hero: "octo")]),
            ("gauntlet", ["mr-spook", "cake", "octo", "egghead", "spouty"].map { PartyMember(player: player(), hero: HeroID($0)) }),
        ]
        var ticks: [(String, String)] = []
        for (seed, (route, party)) in parties.enumerated() {
            let setup = AdventureSetup(route: route, party: party, tickInterval: 1, timeLimit: AdventureSetup.longestTimeLimit,
                                       seed: UInt64(seed + 7))
            guard let adventure = try? Adventure(setup: setup, content: content) else { return [] }
            adventure.playToEnd(commands: []) { state, events in
                ticks.append((CanonicalJSON.text(of: state), TickEventsText.text(of: events.map(CanonicalJSON.text(of:)))))
            }
        }
        return ticks
    }()

    @Test func statesAndEventsAreReadBackByteForByteFromAFractionOfTheirBytes() throws {
        #expect(Self.ticks.count > 200)
        var json = (state: 0, events: 0)
        var stored = (state: 0, events: 0)
        for (state, events) in Self.ticks {
            let storedState = StoredGameText.stored(state), storedEvents = StoredGameText.stored(events)
            #expect(try StoredGameText.text(fromStored: storedState) == state)
            #expect(try StoredGameText.text(fromStored: storedEvents) == events)
            json.state += state.utf8.count; json.events += events.utf8.count
            stored.state += storedState.count; stored.events += storedEvents.count
        }
        #expect(stored.state * 100 < json.state * 35, "states: \(json.state) bytes stored in \(stored.state)")
        #expect(stored.events * 100 < json.events * 25, "events: \(json.events) bytes stored in \(stored.events)")
    }

    @Test func aStateIsStoredDeflatedWithItsOwnFirstByte() throws {
        let state = try #require(Self.ticks.first).state
        #expect(StoredGameText.stored(state).first == 0x02)
    }

    /// What every version before this one stored, and still stores where deflating
    /// would not save a byte: the text itself. No bytes is no events.
    @Test func aTextStoredAsItIsIsReadAsItIs() throws {
        for old in [#"{"boss":{},"tick":3}"#, "{\"type\":\"areaAttack\"}\n{\"type\":\"victory\"}", "{}", "{\"hero\":\"ü\"}"] {
            #expect(try StoredGameText.text(fromStored: Data(old.utf8)) == old)
        }
        #expect(StoredGameText.stored("{}") == Data("{}".utf8))
        #expect(StoredGameText.stored("") == Data())
        #expect(try StoredGameText.text(fromStored: Data()) == "")
    }

    /// A state deflated with the first dictionary: the dictionary may never change,
    /// or what it stored would read as something else.
    @Test func aStateStoredWithTheFirstDictionaryReadsTheSameForever() throws {
        let state = """
            {"boss":{"boss":"thorn-wolf","enraged":false,"health":642,"maxHealth":700,"rank":"minion","shield":0,\
            "usedHealPhase":false,"usedShieldPhase":false},"bossIndex":0,"heroes":[{"health":300,"hero":"power-panda",\
            "maxHealth":300,"player":"p-1"}],"potions":3,"random":{"s0":1,"s1":2,"s2":3,"s3":4},"status":"running","tick":1}
            """
        let stored = try #require(Data(base64Encoded: "AsOILqKKeTMTI4LFPPkRRji+yAjyAl1DAgFnCAk5I0jQGUPCzgRf4BnWAgA="))
        #expect(try StoredGameText.text(fromStored: stored) == state)
    }

    @Test func aDamagedStoredTextIsRefusedAsCorruptNotRead() throws {
        let stored = StoredGameText.stored(try #require(Self.ticks.first).state)
        let damaged: [(String, Data)] = [
            ("an unknown first byte", Data([0x03]) + stored.dropFirst()),
            ("a payload's first byte", Data([0x01]) + stored.dropFirst()),
            ("cut short", stored.prefix(stored.count / 2)),
            ("with bytes after its end", stored + Data([1, 2, 3])),
            ("the mark alone", Data([0x02])),
            ("not UTF-8", Data([UInt8(ascii: "{"), 0xFF, UInt8(ascii: "}")])),
        ]
        for (what, bytes) in damaged {
            do {
                let text = try StoredGameText.text(fromStored: bytes)
                Issue.record("\(what): read as \(text.debugDescription)")
            } catch StoreError.corrupt {
            } catch { Issue.record("\(what): \(error) is not a corrupt stored value") }
        }
    }
}
