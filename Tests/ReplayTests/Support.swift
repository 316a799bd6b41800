import Catalog
import Foundation
import Game
import GRDB
import PushPolicy
import Replay
import Store
import StoreSQLite
import Vocabulary

/// The shipped content, and scratch folders under one per test process, removed
/// when the process exits.
enum ReplayFixture {
    static let repositoryRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let contentDirectory = repositoryRoot.appendingPathComponent("Content")

    static let loaded: LoadedContent = {
        do {
            return try LoadedContent.load(from: contentDirectory, requiring: PushPolicy.contentRequirements)
        } catch {
            fatalError("Content/ must load: \(error)")
        }
    }()

    static var content: ReplayContent { ReplayContent(loaded) }

    private static let root = FileManager.default.temporaryDirectory
        .appendingPathComponent("replay-tests-\(ProcessInfo.processInfo.processIdentifier)")
    private static let removeRootAtExit: Void = {
        atexit { try? FileManager.default.removeItem(at: ReplayFixture.root) }
    }()

    static func scratchDirectory() throws -> URL {
        removeRootAtExit
        let directory = root.appendingPathComponent(UUID().uuidString)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }

    static let heroes: [HeroID] = ["power-panda", "egghead", "spouty"]

    static func setup(seed: UInt64 = 7, tickInterval: Int = 10) -> AdventureSetup {
        AdventureSetup(route: loaded.game.routes[0].id, party: heroes.map { PartyMember(player: "p", hero: $0) },
                       tickInterval: tickInterval, timeLimit: AdventureSetup.longestTimeLimit, seed: seed)
    }

    /// A store in a new folder with one whole adventure played into it, two potions included.
    static func recordedAdventure(seed: UInt64 = 7) async throws -> (path: String, store: any RangersStore, id: AdventureID) {
        let path = try scratchDirectory().appendingPathComponent("rangers.sqlite").path
        let store = try SQLiteStore(path: path)
        let id = try await AdventureRecorder(store: store, content: content)
            .record(setup(seed: seed), commands: [(tick: 5, potionFor: "egghead"), (tick: 9, potionFor: "spouty")])
        return (path, store, id)
    }

    /// Changes the database behind the store's back, as a person with sqlite3 would.
    static func edit(_ path: String, _ sql: String, _ arguments: StatementArguments = []) throws -> Int {
        let queue = try DatabaseQueue(path: path)
        return try queue.write { db in
            try db.execute(sql: sql, arguments: arguments)
            return db.changesCount
        }
    }
}
