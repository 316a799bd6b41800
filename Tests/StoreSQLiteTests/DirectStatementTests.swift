import Foundation
import GRDB
@testable import StoreSQLite
import Testing

/// The hot statements bound, run and read through SQLite's C interface: what they
/// write and read is what GRDB's own binding and decoding would, and a failure
/// comes back as GRDB's error, with the statement ready for its next run.
@Suite struct DirectStatementTests {
    private func database() throws -> DatabaseQueue {
        let queue = try DatabaseQueue()
        try queue.write { db in
            try db.execute(sql: """
                CREATE TABLE item (id INTEGER PRIMARY KEY, name TEXT NOT NULL, note TEXT, count INTEGER, flag BOOLEAN NOT NULL,
                                   body BLOB, at DATETIME, ratio REAL, CHECK (count IS NULL OR count >= 0));
                """)
        }
        return queue
    }

    @Test func eachKindOfValueIsStoredAsGRDBWouldStoreIt() throws {
        let queue = try database()
        let at = Date(timeIntervalSince1970: 1_700_000_000.125)
        let body = Data([0, 1, 2, 255])
        try queue.write { db in
            let insert = try db.cachedStatement(sql: "INSERT INTO item (name, note, count, flag, body, at, ratio) VALUES (?, ?, ?, ?, ?, ?, ?)")
            try insert.run {
                $0.add("Power Panda 🐼"); $0.add(nil as String?); $0.add(7); $0.add(true); $0.add(body); $0.add(at.databaseValue)
                $0.add(0.5.databaseValue)
            }
            try insert.run {
                $0.add(""); $0.add("note"); $0.add(nil as Int?); $0.add(false); $0.add(Data()); $0.add(DatabaseValue.null)
                $0.add(Int64(3))
            }
            try db.execute(sql: "INSERT INTO item (name, note, count, flag, body, at, ratio) VALUES (?, ?, ?, ?, ?, ?, ?)",
                           arguments: ["Power Panda 🐼", nil, 7, true, body, at, 0.5])
        }
        let rows = try queue.read { db in try Row.fetchAll(db, sql: "SELECT name, note, count, flag, body, at, ratio FROM item") }
        #expect(rows[0] == rows[2])
        #expect(rows[1] == ["name": "", "note": "note", "count": nil, "flag": false, "body": Data(), "at": nil, "ratio": 3.0])

        var read: [String] = []
        try queue.read { db in
            try db.cachedStatement(sql: "SELECT id, name, note, count, flag, body, at FROM item WHERE id <= ? ORDER BY id")
                .forEachRow({ $0.add(2) }) { row in
                    read.append("\(row.int64(0)) \(row.string(1)) \(row.optionalString(2) ?? "-") \(row.optionalInt(3) ?? -1) "
                                + "\(row.bool(4)) \(Array(row.data(5))) \(row.date(6).map { $0 == at } ?? false)")
                }
        }
        #expect(read == ["1 Power Panda 🐼 - 7 true [0, 1, 2, 255] true", "2  note -1 false [] false"])
    }

    @Test func aFailureIsGRDBsErrorAndTheStatementRunsAgainAfterIt() throws {
        let queue = try database()
        try queue.write { db in
            let insert = try db.cachedStatement(sql: "INSERT INTO item (name, count, flag) VALUES (?, ?, ?)")
            let refused = #expect(throws: DatabaseError.self) { try insert.run { $0.add("a"); $0.add(-1); $0.add(true) } }
            #expect(refused?.extendedResultCode == .SQLITE_CONSTRAINT_CHECK)
            #expect(refused?.sql == insert.sql)
            let notNull = #expect(throws: DatabaseError.self) { try insert.run { $0.add(nil as String?); $0.add(1); $0.add(true) } }
            #expect(notNull?.extendedResultCode == .SQLITE_CONSTRAINT_NOTNULL)
            let miscounted = #expect(throws: DatabaseError.self) { try insert.run { $0.add("b"); $0.add(1) } }
            #expect(miscounted?.resultCode == .SQLITE_MISUSE)
            try insert.run { $0.add("c"); $0.add(1); $0.add(true) }

            // A row callback that throws leaves the statement ready too.
            struct Stop: Error {}
            let select = try db.cachedStatement(sql: "SELECT name FROM item WHERE count >= ?")
            #expect(throws: Stop.self) { try select.forEachRow({ $0.add(0) }) { _ in throw Stop() } }
            var names: [String] = []
            try select.forEachRow({ $0.add(0) }) { names.append($0.string(0)) }
            #expect(names == ["c"])
        }
    }

    /// A refused step of a batch rolls back its own savepoint and nothing else.
    @Test func aSavepointKeepsWhatWentThroughAndUndoesWhatThrew() throws {
        let queue = try database()
        struct Refused: Error {}
        try queue.write { db in
            let insert = try db.cachedStatement(sql: "INSERT INTO item (name, flag) VALUES (?, 1)")
            let savepoint = try ItemSavepoint(db)
            try savepoint.run { try insert.run { $0.add("kept") } }
            #expect(throws: Refused.self) {
                try savepoint.run {
                    try insert.run { $0.add("undone") }
                    throw Refused()
                }
            }
            try savepoint.run { try insert.run { $0.add("kept too") } }
        }
        #expect(try queue.read { db in try String.fetchAll(db, sql: "SELECT name FROM item ORDER BY id") } == ["kept", "kept too"])
    }
}
