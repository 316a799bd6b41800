import Foundation
import GRDB
@testable import StoreSQLite
import StoreTestSupport
import Testing

/// A push's payload is kept deflated (`StoredPayload`); one kept as JSON, as every
/// version before stored it, is claimed and logged as it is.
@Suite struct StoredPayloadSQLiteTests {
    @Test func aPayloadIsStoredDeflatedAndClaimedAndLoggedByteForByte() async throws {
        let store = try ScratchDatabase().open()
        try await expectPayloadsComeBackWhateverTheirStoredForm(in: store, storedPayloads: {
            try await store.rawRead { db in
                try Row.fetchAll(db, sql: "SELECT id, payload FROM outboxMessage ORDER BY id")
                    .map { (id: $0["id"] as Int64, payload: $0["payload"] as Data) }
            }
        }, storeAsBefore: { id, payload in
            try await store.rawWrite { db in
                try db.execute(sql: "UPDATE outboxMessage SET payload = ? WHERE id = ?", arguments: [payload, id])
            }
        })
    }
}
