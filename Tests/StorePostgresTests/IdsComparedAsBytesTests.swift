import Foundation
import Logging
import PostgresNIO
@testable import StorePostgres
import StoreTestSupport
import Testing

/// v24: ids compare as bytes, whatever the database's locale. An index on text
/// under a locale such as `en_US.UTF-8` compares through the C library's
/// collation at every step; these hold every index and every join of ids to "C",
/// so that a text column indexed later without it fails here.
@Suite(.enabled(if: PostgresTestServer.isAvailable, Comment(rawValue: PostgresTestServer.skipped)))
struct IdsComparedAsBytesTests {
    @Test func everyIndexComparesItsTextAsBytes() async throws {
        let store = try await PostgresStore.open(try await PostgresTestServer.shared.freshDatabase())
        try await closing(store) {
            let keys = try await store.query("""
                SELECT i.indexrelid::regclass::text, a.attname::text, coll.collname::text
                FROM pg_index i CROSS JOIN LATERAL unnest(i.indkey::int2[], i.indcollation::oid[]) AS k(attnum, collation_oid)
                JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.attnum
                JOIN pg_collation coll ON coll.oid = k.collation_oid
                JOIN pg_class c ON c.oid = i.indrelid
                WHERE c.relnamespace = current_schema()::regnamespace AND a.atttypid = 'text'::regtype
                """, logger: Logger(label: "tests")).decodeAll((String, String, String).self)
            #expect(keys.count > 40, "\(keys.count) text keys")
            let byLocale = keys.filter { $0.2 != "C" }.map { "\($0.0) (\($0.1)): \($0.2)" }
            #expect(byLocale.isEmpty, "\(byLocale)")
        }
    }

    /// A foreign key is a join of two ids: both sides compare alike, so that the
    /// index of either serves it.
    @Test func bothSidesOfEveryForeignKeyCompareAsBytes() async throws {
        let store = try await PostgresStore.open(try await PostgresTestServer.shared.freshDatabase())
        try await closing(store) {
            let sides = try await store.query("""
                SELECT k.conname::text, a.attname::text, coll.collname::text
                FROM pg_constraint k CROSS JOIN LATERAL (
                    SELECT k.conrelid AS rel, unnest(k.conkey) AS attnum
                    UNION ALL SELECT k.confrelid, unnest(k.confkey)) AS side
                JOIN pg_attribute a ON a.attrelid = side.rel AND a.attnum = side.attnum
                JOIN pg_collation coll ON coll.oid = a.attcollation
                WHERE k.contype = 'f' AND k.connamespace = current_schema()::regnamespace AND a.atttypid = 'text'::regtype
                """, logger: Logger(label: "tests")).decodeAll((String, String, String).self)
            #expect(sides.count >= 40, "\(sides.count) sides")
            let byLocale = sides.filter { $0.2 != "C" }.map { "\($0.0) (\($0.1)): \($0.2)" }
            #expect(byLocale.isEmpty, "\(byLocale)")
        }
    }
}
