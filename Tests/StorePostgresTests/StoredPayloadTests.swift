import Foundation
import Logging
import PostgresNIO
@testable import StorePostgres
import StoreTestSupport
import Testing

/// A push's payload is kept deflated (`StoredPayload`); one kept as JSON, as every
/// version before stored it, is claimed and logged as it is.
@Suite(.enabled(if: PostgresTestServer.isAvailable, Comment(rawValue: PostgresTestServer.skipped)), .closesStores)
struct StoredPayloadPostgresTests {
    @Test func aPayloadIsStoredDeflatedAndClaimedAndLoggedByteForByte() async throws {
        let store = try #require(try await StoreEngine.postgres.open() as? PostgresStore)
        let logger = Logger(label: "tests.stored-payload")
        try await expectPayloadsComeBackWhateverTheirStoredForm(in: store, storedPayloads: {
            try await store.query(PostgresQuery(unsafeSQL: "SELECT id, payload FROM outbox_message ORDER BY id"), logger: logger)
                .decodeAll((Int64, Data).self).map { (id: $0.0, payload: $0.1) }
        }, storeAsBefore: { id, payload in
            try await store.query("UPDATE outbox_message SET payload = \(ByteBuffer(bytes: payload)) WHERE id = \(id)",
                                  logger: logger)
        })
    }
}
