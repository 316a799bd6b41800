import Foundation
import NIOConcurrencyHelpers
import PostgresNIO
import Store
import Vocabulary

// How a push's topic, its log's token and APNs' id are kept (v23): codes and
// bytes written, the text they stand for read back.

/// The topics' codes this node has read (`PostgresStore.topicCodes`, `topics`).
struct TopicCodes {
    /// Only codes read as committed: what queuing writes.
    var byTopic: [Topic: Int32] = [:]
    /// Any code read: what reading a message needs.
    var byCode: [Int32: Topic] = [:]
}

extension PostgresStore {
    /// Each topic's code in `push_topic`, registering those no node has met yet.
    ///
    /// A code is remembered by this node only once it was read as committed, by
    /// an earlier transaction or another node: a code this transaction registers
    /// would name nothing if the transaction rolled back, so it is used here and
    /// read again next time. Two nodes meeting a new topic at once both insert it; the unique key
    /// makes the second wait for the first and do nothing, and read the first's code.
    func topicCodes(of topics: [Topic], _ connection: PostgresConnection) async throws -> [Int32] {
        let known = topicCodeCache.withLockedValue { cache in topics.map { cache.byTopic[$0] } }
        if !known.contains(nil) { return known.map { $0! } }
        // In one order for every node: two inserting the same new topics in
        // different orders would each wait on the other's entry in the unique index.
        let missing = Set(zip(topics, known).filter { $0.1 == nil }.map(\.0.rawValue)).sorted()
        let registered = Set(try await connection.query("""
            INSERT INTO push_topic (topic) SELECT unnest(\(missing)::text[]) ON CONFLICT (topic) DO NOTHING RETURNING topic
            """, logger: logger).decodeAll(String.self))
        var found: [Topic: Int32] = [:]
        for (code, topic) in try await connection.query("""
            SELECT code, topic FROM push_topic WHERE topic = ANY(\(missing)::text[])
            """, logger: logger).decodeAll((Int32, String).self) { found[Topic(rawValue: topic)] = code }
        topicCodeCache.withLockedValue { cache in
            for (topic, code) in found {
                cache.byCode[code] = topic
                if !registered.contains(topic.rawValue) { cache.byTopic[topic] = code }
            }
        }
        return try zip(topics, known).map { topic, code in
            guard let code = code ?? found[topic] else { throw StoreError.corrupt("topic '\(topic)' not in push_topic") }
            return code
        }
    }

    /// The topics `codes` stand for, as this node has read them, or all read again
    /// when one is new to it (registered by another node since). A code is never
    /// given twice, even by a registration that rolled back, so any code read stands
    /// for its topic for good.
    func topics(_ codes: Set<Int32>, _ connection: PostgresConnection) async throws -> [Int32: Topic] {
        let known = topicCodeCache.withLockedValue { $0.byCode }
        if codes.isSubset(of: known.keys) { return known }
        var read: [Int32: Topic] = [:]
        for (code, topic) in try await connection.query("SELECT code, topic FROM push_topic", logger: logger)
            .decodeAll((Int32, String).self) { read[code] = Topic(rawValue: topic) }
        return topicCodeCache.withLockedValue { cache in
            cache.byCode.merge(read) { old, _ in old }
            return cache.byCode
        }
    }

    /// A log entry's token or channel id as text, in a query that names the entry
    /// `l` and its message `m`.
    static let loggedDestination = """
        CASE WHEN m.target_kind = 'followerChannel' THEN convert_from(l.token, 'UTF8') ELSE encode(l.token, 'hex') END
        """

    /// APNs' id as it came back, in a query that names the log entry `l`.
    static let loggedAPNsID = "COALESCE(l.apns_id::text, l.apns_id_not_uuid)"

    /// The bytes the push log keeps for where a push went: a token's, or a channel id's UTF-8.
    static func storedDestination(_ destination: PushDestination) throws -> ByteBuffer {
        switch destination {
        case .channel(let channel): return ByteBuffer(string: channel.rawValue)
        case .device(let token):
            guard let bytes = lowercaseHexBytes(token.hex) else { throw StoreError.corrupt("a push's token that is not lowercase hex") }
            return ByteBuffer(bytes: bytes)
        }
    }

    /// Stands for "no uuid" in an array, which holds no NULL: never a version 4 id.
    static let noUUID = UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))

    /// APNs' id as a `uuid` when `uuid` gives it back as it came (lowercase,
    /// canonical), else as text; the other is `noUUID` or "".
    static func storedAPNsID(_ text: String?) -> (uuid: UUID, text: String) {
        guard let text else { return (noUUID, "") }
        guard let uuid = canonicalLowercaseUUID(text), uuid != noUUID else { return (noUUID, text) }
        return (uuid, "")
    }

    /// The id spelt `8-4-4-4-12` lowercase hex digits, as PostgreSQL writes a
    /// `uuid`; nil for any other spelling, which it would not give back as it was.
    static func canonicalLowercaseUUID(_ text: String) -> UUID? {
        let characters = Array(text.utf8)
        let dashes = [8, 13, 18, 23]
        guard characters.count == 36, dashes.allSatisfy({ characters[$0] == UInt8(ascii: "-") }),
              let bytes = lowercaseHexBytes(characters.indices.filter { !dashes.contains($0) }.map { characters[$0] })
        else { return nil }
        return bytes.withUnsafeBytes { UUID(uuid: $0.loadUnaligned(as: uuid_t.self)) }
    }

    /// The bytes of an even number of lowercase hex digits, which `encode(…, 'hex')`
    /// gives back as they were; nil for anything else.
    static func lowercaseHexBytes(_ hex: String) -> [UInt8]? { lowercaseHexBytes(Array(hex.utf8)) }

    private static func lowercaseHexBytes(_ digits: [UInt8]) -> [UInt8]? {
        guard digits.count.isMultiple(of: 2) else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(digits.count / 2)
        for index in stride(from: 0, to: digits.count, by: 2) {
            guard let high = lowercaseHexValue(digits[index]), let low = lowercaseHexValue(digits[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
        }
        return bytes
    }

    private static func lowercaseHexValue(_ digit: UInt8) -> UInt8? {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
        default: nil
        }
    }
}
