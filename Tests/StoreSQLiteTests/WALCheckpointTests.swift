import Foundation
import GRDB
@testable import StoreSQLite
import Testing

/// The WAL is copied back into the file by the checkpointer's own connection,
/// and starts over, however long the writer goes on writing.
@Suite struct WALCheckpointTests {
    @Test func theCheckpointerCopiesTheWALBackAndItStartsOver() async throws {
        let scratch = try ScratchDatabase()
        let store = try SQLiteStore(path: scratch.path, migratingUpTo: nil, checkpointAfterFrames: 64)
        try await store.rawWrite { db in try db.execute(sql: "CREATE TABLE scratch(id INTEGER PRIMARY KEY, payload BLOB)") }
        // Five pages a commit, 1,600 commits: about 32 MB through the WAL.
        let payload = Data(repeating: 7, count: 16_384)
        var largestWAL: Int64 = 0
        for round in 0..<1_600 {
            try await store.rawWrite { db in
                try db.execute(sql: "INSERT OR REPLACE INTO scratch(id, payload) VALUES (?, ?)", arguments: [round % 50, payload])
            }
            let attributes = try FileManager.default.attributesOfItem(atPath: scratch.path + "-wal")
            largestWAL = max(largestWAL, (attributes[.size] as? NSNumber)?.int64Value ?? 0)
        }
        #expect(store.checkpointer.completed > 0)
        // Asked for at 64 frames, the writer stepping in from 256 (about 1 MiB): the
        // WAL starts over, though it may pass 256 by what the writer adds while a
        // checkpoint of the checkpointer's is under way. One that never started
        // over would hold all 32 MB.
        #expect(largestWAL < 8 << 20, "the WAL grew to \(largestWAL) bytes")
        let rows = try await store.rawRead { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM scratch") }
        #expect(rows == 50)
    }
}
