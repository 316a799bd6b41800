import Foundation
import Game
import PushPolicy
import Store
import Testing
import Vocabulary

/// The shipped content, read straight from Content/ (the storage tests see only
/// the store, so they decode the files themselves), to play real ticks.
public enum ShippedContent {
    static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Content")

    private struct HeroesFile: Decodable { var heroes: [HeroDefinition] }
    private struct BossesFile: Decodable { var bosses: [BossDefinition]; var routes: [Route] }

    public static let game: GameContent = {
        do {
            let decoder = JSONDecoder()
            func data(_ name: String) throws -> Data { try Data(contentsOf: root.appendingPathComponent(name)) }
            let heroes = try decoder.decode(HeroesFile.self, from: data("heroes.json")).heroes
            let bosses = try decoder.decode(BossesFile.self, from: data("bosses.json"))
            let rules = try decoder.decode(GameRules.self, from: data("rules.json"))
            return GameContent(heroes: heroes, bosses: bosses.bosses, routes: bosses.routes, rules: rules)
        } catch {
            fatalError("Content/ must decode: \(error)")
        }
    }()
}

/// Three players with a party of Power Panda, Egghead and Spouty, as the demo has.
public struct Trio: Sendable {
    public let store: any RangersStore
    public let players: [Player]
    public let keys: [String]
    public let party: Party
    public let heroes: [HeroID] = ["power-panda", "egghead", "spouty"]

    public static func make(in store: any RangersStore) async throws -> Trio {
        var players: [Player] = []
        var keys: [String] = []
        for name in ["Ana", "Bao", "Chae"] {
            let (player, key) = try await store.createPlayer(name: name)
            players.append(player)
            keys.append(key)
        }
        let heroes: [HeroID] = ["power-panda", "egghead", "spouty"]
        for (player, hero) in zip(players, heroes) { try await store.pickHeroes([hero], for: player.id) }
        let party = try await store.createParty(name: "Rangers", by: players[0].id, hero: heroes[0])
        for (player, hero) in zip(players, heroes).dropFirst() {
            try await store.joinParty(inviteCode: party.inviteCode.rawValue, player: player.id, hero: hero)
        }
        return Trio(store: store, players: players, keys: keys, party: party)
    }

    public var roster: [PartyMember] { zip(players, heroes).map { PartyMember(player: $0.id, hero: $1) } }

    public func setup(seed: UInt64 = 7, tickInterval: Int = 2) -> AdventureSetup {
        AdventureSetup(route: "whispering-woods", party: roster, tickInterval: tickInterval, timeLimit: 3600, seed: seed)
    }

    public func game(seed: UInt64 = 7, tickInterval: Int = 2) throws -> Adventure {
        try Adventure(setup: setup(seed: seed, tickInterval: tickInterval), content: ShippedContent.game)
    }

    /// Starts an adventure at `startedAt`; with a `followCode`, a followable one.
    public func startAdventure(seed: UInt64 = 7, startedAt: Int = 1_000, followCode: FollowCode? = nil,
                               outbox: [OutboxMessage] = []) async throws -> StoredAdventure {
        let game = try game(seed: seed)
        return try await store.startAdventure(party: party.id, setup: game.setup, state: game.start(), startedAt: startedAt,
                                              contentVersion: "content-test", followCode: followCode, outbox: outbox)
    }

    @discardableResult
    public func registerActivities(for adventure: AdventureID) async throws -> [ActivityID] {
        var ids: [ActivityID] = []
        for (index, member) in roster.enumerated() {
            let id = ActivityID("activity-\(index)-\(adventure.rawValue.prefix(8))")
            try await store.registerLiveActivity(activityID: id, player: member.player, adventure: adventure, hero: member.hero,
                                                 token: Tokens.make(index), frequentUpdates: index == 0, locale: "en")
            ids.append(id)
        }
        return ids
    }
}

extension StoreEngine {
    /// A store of this engine with a running adventure of three, their activities registered.
    public func runningAdventure() async throws -> (any RangersStore, Trio, StoredAdventure, [ActivityID]) {
        let store = try await open()
        let trio = try await Trio.make(in: store)
        let adventure = try await trio.startAdventure()
        let activities = try await trio.registerActivities(for: adventure.id)
        return (store, trio, adventure, activities)
    }
}

public enum Tokens {
    /// A distinct 32-byte token for each seed.
    public static func make(_ seed: Int) -> PushToken {
        try! PushToken(hex: String(repeating: String(format: "%02x", seed % 256), count: 32))
    }
}

/// An update push for an activity as the ticker would queue it; the body names
/// the tick so a test can tell which one was claimed.
public func update(_ activity: ActivityID, tick: Int = 1, alert: Bool = false, end: Bool = false,
                   expiration: Int = 4_000_000_000) -> OutboxMessage {
    OutboxMessage(target: .liveActivity(activity), pushType: .liveactivity, topic: "app.rangers.push-type.liveactivity",
                  priority: alert ? .high : .low, expiration: expiration,
                  payload: Data(#"{"aps":{"event":"\#(end ? "end" : "update")","timestamp":\#(tick)}}"#.utf8),
                  reason: alert ? "alert" : "routine", hasAlert: alert, isEnd: end, supersedable: !alert && !end)
}

/// An update push with a payload of the size and words the ticker's have (~560 bytes).
public func realisticUpdate(_ activity: ActivityID) -> OutboxMessage {
    var message = update(activity)
    message.payload = Data(#"{"aps":{"content-state":{"boss":{"healthLevel":0.742,"id":"ember-dragon","isEnraged":true,"position":1},"currentHealthLevel":0.418,"eventDescription":"Octo deals 23 damage to Ember Dragon","heroes":[{"healthLevel":0.418,"id":"octo","isKnockedDown":false},{"healthLevel":0.09,"id":"cake","isKnockedDown":false},{"healthLevel":0,"id":"mr-spook","isKnockedDown":true}],"latestEvent":{"args":["Octo","23","Ember Dragon"],"key":"event.damageDealt"},"potions":1},"event":"update","relevance-score":64,"stale-date":1767231875,"timestamp":1767231845}}"#.utf8)
    return message
}

/// Plays a tick of realistic updates to a party's activities and holds each
/// engine to `StoredPayload`: every payload but the last stored deflated, in
/// under a quarter of its bytes. The last is then stored again as JSON, as
/// versions before kept it (`storeAsBefore`), and each payload must come back
/// byte for byte from the claim, the push log and the outbox. `storedPayloads`
/// reads the engine's own rows, by push id.
public func expectPayloadsComeBackWhateverTheirStoredForm(
    in store: any RangersStore, storedPayloads: () async throws -> [(id: Int64, payload: Data)],
    storeAsBefore: (Int64, Data) async throws -> Void
) async throws {
    let trio = try await Trio.make(in: store)
    let adventure = try await trio.startAdventure()
    let activities = try await trio.registerActivities(for: adventure.id)
    try await store.playNextTick(of: adventure.id) { _ in activities.map { realisticUpdate($0) } }
    let stored = try await storedPayloads()
    #expect(stored.count == activities.count)
    for row in stored.dropLast() {
        #expect(row.payload.first == 0x01)
        #expect(row.payload.count * 4 < realisticUpdate(activities[0]).payload.count)
    }
    let old = Data(#"{"aps":{"event":"update","timestamp":1}}"#.utf8)
    try await storeAsBefore(try #require(stored.last).id, old)
    let sent = Array(activities.map { realisticUpdate($0).payload }.dropLast() + [old])

    let claimed = try await store.claimOutbox(limit: 10)
    #expect(claimed.sorted { $0.id.rawValue < $1.id.rawValue }.map(\.message.payload) == sent)
    _ = try await store.record(claimed.map { PushResult($0, .delivered(apnsID: "\($0.id.rawValue)")) }, at: Date())
    #expect(try await store.pushLog(of: adventure.id).map(\.payload) == sent)
    #expect(try await store.outbox(of: adventure.id).map(\.message.payload) == sent)
}

extension RangersStore {
    /// Plays the adventure's next tick with the real game and stores it, as the
    /// ticker does, with `outbox` as the tick's pushes.
    @discardableResult
    public func playNextTick(of id: AdventureID, outbox: (StoredAdventure) -> [OutboxMessage] = { _ in [] },
                             ledgers: [ActivityID: BudgetLedger] = [:], at now: Date = Date()) async throws -> StoredAdventure {
        let inputs = try await tickInputs(of: id)
        let game = try Adventure(setup: inputs.adventure.setup, content: ShippedContent.game)
        let (state, events) = game.tick(inputs.adventure.state, commands: inputs.commands.map(\.command))
        return try await recordTick(adventure: id, tick: state.tick, state: state, events: events,
                                    appliedCommandIDs: inputs.commands.map(\.id), outbox: outbox(inputs.adventure),
                                    ledgers: ledgers, at: now)
    }
}

/// Players outside a party who follow its adventures, each with a device that has
/// a push-to-start token.
public struct Watchers: Sendable {
    public let players: [Player]
    public let devices: [DeviceID]

    public static func make(_ count: Int, in store: any RangersStore, tokenSeed: Int = 200) async throws -> Watchers {
        var players: [Player] = []
        var devices: [DeviceID] = []
        for index in 0..<count {
            let player = try await store.createPlayer(name: "Watcher \(index)").player
            let device = DeviceID("watcher-device-\(index)-\(player.id.rawValue.prefix(6))")
            try await store.registerPushToStartToken(deviceID: device, player: player.id, token: Tokens.make(tokenSeed + index),
                                                     locale: "en")
            players.append(player)
            devices.append(device)
        }
        return Watchers(players: players, devices: devices)
    }
}

extension FollowRequest {
    /// A follow on a channel (iOS 18), with generous limits unless given.
    public static func channel(_ adventure: StoredAdventure, player: PlayerID, language: String = "en", code: String? = nil,
                               channelLimit: Int = 10_000) -> FollowRequest {
        FollowRequest(adventure: adventure.id, player: player, code: code ?? adventure.followCode?.rawValue ?? "", language: language,
                      how: .channel, tokenFollowersPerAdventure: 100, channelLimit: channelLimit,
                      storagePolicy: .mostRecentMessageStored)
    }

    /// A follow per token (before iOS 18): its push-to-start is a placeholder body naming the device.
    public static func token(_ adventure: StoredAdventure, player: PlayerID, device: DeviceID, language: String = "en",
                             tokenFollowers: Int = 100) -> FollowRequest {
        FollowRequest(adventure: adventure.id, player: player, code: adventure.followCode?.rawValue ?? "", language: language,
                      how: .pushToStart(device: device) { stored, device in
                          OutboxMessage(target: .pushToStart(device), pushType: .liveactivity,
                                        topic: "app.rangers.push-type.liveactivity", priority: .high,
                                        expiration: stored.startedAt + 3600,
                                        payload: Data(#"{"aps":{"event":"start","timestamp":\#(stored.lastTick)}}"#.utf8),
                                        reason: "following started", hasAlert: true, isEnd: false, supersedable: false)
                      },
                      tokenFollowersPerAdventure: tokenFollowers, channelLimit: 10_000, storagePolicy: .mostRecentMessageStored)
    }
}

/// A broadcast to a followers' channel as the ticker would queue it.
public func broadcast(_ channel: FollowerChannelID, tick: Int = 1, alert: Bool = false, end: Bool = false) -> OutboxMessage {
    OutboxMessage(target: .followerChannel(channel), pushType: .liveactivity, topic: "app.rangers.push-type.liveactivity",
                  priority: alert ? .high : .low, expiration: 4_000_000_000,
                  payload: Data(#"{"aps":{"event":"\#(end ? "end" : "update")","timestamp":\#(tick)}}"#.utf8),
                  reason: alert ? "alert" : "routine", hasAlert: alert, isEnd: end, supersedable: !alert && !end)
}

/// After a migration that starts counting changes to the activities: activities
/// registered before it are read as they are, at a count of none, and ending one
/// moves the count and takes it out.
public func expectActivityChangesCountedFromNone(in store: any RangersStore, trio: Trio, adventure: AdventureID,
                                                 activities: [ActivityID]) async throws {
    let before = try #require(try await store.dueAdventures(by: 4_000).first)
    #expect(before.activityChanges == 0)
    #expect(before.activities?.members.map(\.recipient.activityID) == activities)
    try await store.markActivity(activities[1], .ended, by: trio.players[1].id)
    let after = try #require(try await store.dueAdventures(by: 4_000).first)
    #expect(after.activityChanges == 1)
    #expect(after.activities?.members.map(\.recipient.activityID) == [activities[0], activities[2]])
}
