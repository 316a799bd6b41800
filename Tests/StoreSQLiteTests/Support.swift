import Foundation
import Game
import GRDB
import PushPolicy
import Store
@testable import StoreSQLite
import StoreTestSupport
import Vocabulary

/// A real SQLite file in a directory of its own. All of them live under one
/// folder per test process, removed when the process exits: a test's store may
/// still be open when the test's last line has run, so nothing is removed sooner.
struct ScratchDatabase {
    private static let root = FileManager.default.temporaryDirectory
        .appendingPathComponent("store-tests-\(ProcessInfo.processInfo.processIdentifier)")
    private static let removeRootAtExit: Void = {
        atexit { try? FileManager.default.removeItem(at: ScratchDatabase.root) }
    }()

    let directory: URL
    var path: String { directory.appendingPathComponent("rangers.sqlite").path }

    init() throws {
        Self.removeRootAtExit
        directory = Self.root.appendingPathComponent(UUID().uuidString)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    func open() throws -> SQLiteStore { try SQLiteStore(path: path) }
}

/// The shipped content, read straight from Content/ (the test target sees only
/// the store, so it decodes the files itself), to play real ticks.
enum ShippedContent {
    static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Content")

    private struct HeroesFile: Decodable { var heroes: [HeroDefinition] }
    private struct BossesFile: Decodable { var bosses: [BossDefinition]; var routes: [Route] }

    static let game: GameContent = {
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
struct Trio {
    let store: SQLiteStore
    let players: [Player]
    let keys: [String]
    let party: Party
    let heroes: [HeroID] = ["power-panda", "egghead", "spouty"]

    static func make(in store: SQLiteStore) async throws -> Trio {
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

    var roster: [PartyMember] { zip(players, heroes).map { PartyMember(player: $0.id, hero: $1) } }

    func setup(seed: UInt64 = 7, tickInterval: Int = 2) -> AdventureSetup {
        AdventureSetup(route: "whispering-woods", party: roster, tickInterval: tickInterval, timeLimit: 3600, seed: seed)
    }

    func game(seed: UInt64 = 7, tickInterval: Int = 2) throws -> Adventure {
        try Adventure(setup: setup(seed: seed, tickInterval: tickInterval), content: ShippedContent.game)
    }

    /// Starts an adventure at `startedAt` and registers one Live Activity per member.
    func startAdventure(seed: UInt64 = 7, startedAt: Int = 1_000, outbox: [OutboxMessage] = []) async throws -> StoredAdventure {
        let game = try game(seed: seed)
        return try await store.startAdventure(party: party.id, setup: game.setup, state: game.start(), startedAt: startedAt,
                                              contentVersion: "content-test", outbox: outbox)
    }

    @discardableResult
    func registerActivities(for adventure: AdventureID) async throws -> [ActivityID] {
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

enum Tokens {
    /// A distinct 32-byte token for each seed.
    static func make(_ seed: Int) -> PushToken {
        try! PushToken(hex: String(repeating: String(format: "%02x", seed % 256), count: 32))
    }
}

/// An update push for an activity as the ticker would queue it; the body names
/// the tick so a test can tell which one was claimed.
func update(_ activity: ActivityID, tick: Int = 1, alert: Bool = false, end: Bool = false,
            expiration: Int = 4_000_000_000) -> OutboxMessage {
    OutboxMessage(target: .liveActivity(activity), pushType: .liveactivity, topic: "app.rangers.push-type.liveactivity",
                  priority: alert ? .high : .low, expiration: expiration,
                  payload: Data(#"{"aps":{"event":"\#(end ? "end" : "update")","timestamp":\#(tick)}}"#.utf8),
                  reason: alert ? "alert" : "routine", hasAlert: alert, isEnd: end, supersedable: !alert && !end)
}

extension SQLiteStore {
    /// A raw read for what no operation exposes (hashes, history rows).
    func rawRead<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try await pool.read(body)
    }

    /// Plays the adventure's next tick with the real game and stores it, as the
    /// ticker does, with `outbox` as the tick's pushes.
    @discardableResult
    func playNextTick(of id: AdventureID, outbox: (StoredAdventure) -> [OutboxMessage] = { _ in [] },
                      ledgers: [ActivityID: BudgetLedger] = [:]) async throws -> StoredAdventure {
        let inputs = try await tickInputs(of: id)
        let game = try Adventure(setup: inputs.adventure.setup, content: ShippedContent.game)
        let (state, events) = game.tick(inputs.adventure.state, commands: inputs.commands.map(\.command))
        return try await recordTick(adventure: id, tick: state.tick, state: state, events: events,
                                    appliedCommandIDs: inputs.commands.map(\.id), outbox: outbox(inputs.adventure),
                                    ledgers: ledgers)
    }
}
