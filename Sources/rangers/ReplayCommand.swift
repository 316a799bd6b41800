import ArgumentParser
import Catalog
import Foundation
import Game
import PushPolicy
import Replay
import Server
import Store
import StoreSQLite
import Vocabulary

/// `rangers replay`: play a saved adventure again and compare, look at it, push it again.
struct ReplayCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "replay",
        abstract: "Play a saved adventure again and compare it with its log; print, chart or re-push it.",
        discussion: """
            The source is an adventure id (read from the database) or a session file written by \
            `rangers replay export`. Exit status: 0 identical, 1 the replay differs from the log, \
            2 a usage mistake or an unreadable, foreign or edited session file, 3 the content the \
            adventure ran with is not the content loaded now.
            """,
        subcommands: [ReplayVerifyCommand.self, ReplayExportCommand.self],
        defaultSubcommand: ReplayVerifyCommand.self
    )
}

/// Where a saved session comes from: the store (`--db` or `--database`) and
/// Content/ for an adventure id.
struct SessionSourceOptions: ParsableArguments {
    @OptionGroup var database: DatabaseOptions

    @OptionGroup var content: ContentOptions

    /// A session file when `source` names one (or ends in .json), else an adventure
    /// in the database, with the content to play it with and how many pushes it
    /// had. Reading an adventure's pushes from the database costs more than
    /// replaying it: `withPushes` false leaves them out (but counts them).
    func load(_ source: String, withPushes: Bool) async throws -> Loaded {
        if source.hasSuffix(".json") || FileManager.default.fileExists(atPath: source) {
            let (session, content) = try loadFile(source)
            return Loaded(session: session, content: content, pushCount: session.pushes.count)
        }
        let record = try await adventureRecord(source, withPushes: withPushes)
        let loaded = try loadContent()
        guard loaded.version == record.adventure.contentVersion else {
            throw ContentChanged(error: .contentChanged(recorded: record.adventure.contentVersion, current: loaded.version))
        }
        let snapshot: ContentSnapshot
        do {
            snapshot = try ContentSnapshot(of: loaded)
        } catch {
            throw UsageError("\(error)")
        }
        return Loaded(session: try SavedSession(record, content: snapshot), content: ReplayContent(loaded),
                      pushCount: record.outboxCount)
    }

    struct Loaded {
        var session: SavedSession
        var content: ReplayContent
        var pushCount: Int
    }

    private func loadFile(_ path: String) throws -> (session: SavedSession, content: ReplayContent) {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw UsageError("cannot read session file \(path)")
        }
        do {
            let session = try SessionFile.decode(data)
            return (session, try ReplayContent(snapshotOf: session))
        } catch {
            throw UsageError("session file \(path): \(error)")
        }
    }

    private func adventureRecord(_ id: String, withPushes: Bool) async throws -> AdventureRecord {
        let choice = try database.choice(defaultPath: SQLiteStore.defaultPath)
        if case .sqlite(let path) = choice, !FileManager.default.fileExists(atPath: path) {
            throw UsageError("no database at \(path) (pass --db or --database, or set RANGERS_DB or RANGERS_DATABASE_URL), "
                + "and no session file named '\(id)'")
        }
        let store: any RangersStore
        do {
            store = try await choice.open(asNode: false)
        } catch {
            throw UsageError(error)
        }
        do {
            let record = try await store.record(of: AdventureID(id), includingOutbox: withPushes)
            await StoreChoice.close(store)
            return record
        } catch let error as StoreError {
            await StoreChoice.close(store)
            throw UsageError("\(error) (database \(choice))")
        } catch {
            await StoreChoice.close(store)
            throw UsageError("cannot read the database \(choice): \(error)")
        }
    }

    private func loadContent() throws -> LoadedContent {
        do {
            return try LoadedContent.load(from: content.directory, requiring: PushPolicy.contentRequirements)
        } catch {
            throw UsageError("\(error)\nRun `rangers content check` for details.")
        }
    }
}

/// The adventure ran with other content than the one loaded now: exit 3.
struct ContentChanged: Error {
    var error: VerificationError
}

struct ReplayExportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Write an adventure from the database to a self-contained session file.",
        discussion: "The file carries the content the adventure ran with, so it replays without the database or Content/."
    )

    @Argument(help: "The adventure's id.")
    var adventure: String

    @Option(name: .shortAndLong, help: "The session file to write.")
    var output: String

    @OptionGroup var source: SessionSourceOptions

    func run() async throws {
        let session: SavedSession
        do {
            session = try await source.load(adventure, withPushes: true).session
        } catch let changed as ContentChanged {
            FileHandle.standardError.write(Data("rangers: \(changed.error)\n".utf8))
            throw ExitCode(3)
        }
        do {
            try SessionFile.encode(session).write(to: URL(fileURLWithPath: output), options: .atomic)
        } catch {
            throw UsageError("cannot write \(output): \(error.localizedDescription)")
        }
        print("wrote \(output): adventure \(session.adventureID), \(session.lastTick) ticks, "
              + "\(session.events.count) events, \(session.pushes.count) pushes")
    }
}
