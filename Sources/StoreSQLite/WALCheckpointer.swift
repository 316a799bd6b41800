import Foundation
import GRDB
import GRDBSQLite

/// Copies the WAL back into the database file on a connection and a thread of
/// its own, so the writer never waits for it.
///
/// SQLite's own automatic checkpoint runs on the writer right after the commit
/// that filled the WAL: under load that is tens of megabytes written and synced
/// while the ticker's next commit waits behind it (the tick lag's slowest
/// percent). Here the writer's WAL hook only asks for a checkpoint; a PASSIVE
/// checkpoint on another connection copies what is committed without taking the
/// write lock, side by side with the writer's commits.
///
/// The WAL starts over only when a checkpoint has copied all of it before the
/// writer's next transaction. Under steady writes the writer has always added
/// more by then, so past `writerFallbackFrames` the writer checkpoints itself,
/// as SQLite would: little is left to copy by then, and the WAL cannot grow
/// without bound. It may pass `writerFallbackFrames` by what the writer commits
/// while a checkpoint of the checkpointer's is under way: the writer's own then
/// finds it busy (one checkpoint at a time, and no waiting for that lock). On a
/// slow disk that checkpoint takes long enough for the writer to outrun it again
/// and again: past twice `writerFallbackFrames` the writer waits for it to end
/// and then copies the rest itself.
final class WALCheckpointer: @unchecked Sendable {
    /// WAL frames (pages) after which a checkpoint is asked for.
    let thresholdFrames: Int32
    /// WAL frames past which the writer checkpoints on its own.
    let writerFallbackFrames: Int32
    private let path: String
    private let condition = NSCondition()
    // condition
    private var requested = false
    private var stopped = false
    private var checkpoints = 0

    init(path: String, thresholdFrames: Int32) {
        self.path = path
        self.thresholdFrames = thresholdFrames
        writerFallbackFrames = thresholdFrames * 4
        let thread = Thread { [self] in run() }
        thread.name = "sqlite-checkpoint"
        thread.start()
    }

    /// Installs the hook on the writer's connection: it runs after each commit,
    /// on the writer, with the WAL's length in frames.
    func watch(_ db: Database) {
        // The hook holds the checkpointer weakly through a box that lives as long
        // as the connection may call it (a few bytes per writer connection).
        let box = Unmanaged.passRetained(WeakCheckpointer(self)).toOpaque()
        sqlite3_wal_hook(db.sqliteConnection, { context, connection, name, frames in
            guard let context,
                  let checkpointer = Unmanaged<WeakCheckpointer>.fromOpaque(context).takeUnretainedValue().checkpointer
            else { return SQLITE_OK }
            if frames >= checkpointer.writerFallbackFrames {
                var result = sqlite3_wal_checkpoint_v2(connection, name, SQLITE_CHECKPOINT_PASSIVE, nil, nil)
                // Refused while the checkpointer's own is under way (one at a time); past
                // twice the fallback a slow disk has let the writer outrun it: wait for
                // it to end, then copy the rest here, so the WAL starts over.
                var waited = 0
                while result == SQLITE_BUSY, frames >= checkpointer.writerFallbackFrames * 2, waited < 5_000 {
                    usleep(1_000)
                    waited += 1
                    result = sqlite3_wal_checkpoint_v2(connection, name, SQLITE_CHECKPOINT_PASSIVE, nil, nil)
                }
            } else if frames >= checkpointer.thresholdFrames {
                checkpointer.request()
            }
            return SQLITE_OK
        }, box)
    }

    /// Checkpoints that went through so far.
    var completed: Int { condition.withLock { checkpoints } }

    func request() {
        condition.withLock {
            requested = true
            condition.signal()
        }
    }

    func stop() {
        condition.withLock {
            stopped = true
            condition.signal()
        }
    }

    private func run() {
        // Opened at the first request, when the pool has made the file a WAL database.
        var connection: DatabaseQueue?
        while true {
            let go: Bool = condition.withLock {
                while !requested, !stopped { condition.wait() }
                requested = false
                return !stopped
            }
            guard go else { return }
            if connection == nil {
                var configuration = Configuration()
                configuration.label = "SQLiteStore.checkpointer"
                connection = try? DatabaseQueue(path: path, configuration: configuration)
            }
            do {
                _ = try connection?.writeWithoutTransaction { db in try db.checkpoint(.passive) }
                condition.withLock { checkpoints += 1 }
            } catch {
                // The WAL stays as it was; the next request tries again.
            }
        }
    }
}

private final class WeakCheckpointer {
    weak var checkpointer: WALCheckpointer?
    init(_ checkpointer: WALCheckpointer) { self.checkpointer = checkpointer }
}
