import CZlib
import Foundation

/// How both engines keep a push's payload: deflated against a dictionary of the
/// words payloads are made of, so that a ~560-byte update is stored in ~90 bytes.
/// A push is written once and read when it is claimed and shown, so its bytes are
/// the largest part of what a tick writes; neither engine compresses a row this
/// small by itself (PostgreSQL looks at a row only past some 2 KB).
///
/// The stored form says which it is by its first byte:
/// - `{`: the payload as it is, as every payload was stored before, and as one
///   is still stored when compressing it would not make it smaller;
/// - `0x01`: raw deflate (RFC 1951) of the payload with `dictionaryV1` preset.
///
/// A dictionary, once a payload has been stored with it, is never edited: a new
/// one takes a new first byte, and the old one stays for what it wrote.
public enum StoredPayload {
    static let deflatedWithV1: UInt8 = 0x01
    /// An APNs payload is at most 5 KB; a stored one that inflates past this is corrupt.
    static let largestPayload = 1 << 20
    /// 8 KiB: a payload up to 4 KB can still refer to the whole dictionary.
    private static let windowBits: Int32 = 13
    private static let memoryLevel: Int32 = 4

    /// The bytes to store for `payload`.
    public static func stored(_ payload: Data) -> Data {
        guard let deflated = deflate(payload) else { return payload }
        if payload.first == UInt8(ascii: "{") && deflated.count >= payload.count { return payload }
        return deflated
    }

    /// The payload that `stored` kept.
    public static func payload(fromStored stored: Data) throws -> Data {
        switch stored.first {
        case UInt8(ascii: "{"): return stored
        case deflatedWithV1: return try inflate(stored.dropFirst())
        case let mark:
            throw StoreError.corrupt("a stored payload that begins with byte \(mark.map(String.init) ?? "none")")
        }
    }

    /// `deflatedWithV1` and the deflated bytes; nil only if zlib cannot start,
    /// and then the payload is stored as it is.
    private static func deflate(_ payload: Data) -> Data? {
        guard let primed = primedDeflater else { return nil }
        var stream = z_stream()
        guard deflateCopy(&stream, primed.stream) == Z_OK else { return nil }
        defer { deflateEnd(&stream) }
        let bound = Int(deflateBound(&stream, UInt(payload.count)))
        var out = Data(count: 1 + bound)
        let written: Int? = payload.withUnsafeBytes { input in
            out.withUnsafeMutableBytes { output in
                let base = output.bindMemory(to: UInt8.self).baseAddress!
                base[0] = deflatedWithV1
                stream.next_in = UnsafeMutablePointer(mutating: input.bindMemory(to: UInt8.self).baseAddress)
                stream.avail_in = UInt32(input.count)
                stream.next_out = base + 1
                stream.avail_out = UInt32(bound)
                guard CZlib.deflate(&stream, Z_FINISH) == Z_STREAM_END else { return nil }
                return 1 + bound - Int(stream.avail_out)
            }
        }
        guard let written else { return nil }
        out.count = written
        return out
    }

    /// A deflate stream that has taken in `dictionaryV1` and nothing else. Taking in
    /// the dictionary is most of the cost of deflating a payload, so each payload is
    /// deflated by a copy of this stream (`deflateCopy` only reads it: copies can be
    /// made on any thread at once).
    private final class PrimedDeflater: @unchecked Sendable {
        /// At a fixed address: zlib's state points back at its stream.
        let stream: UnsafeMutablePointer<z_stream>

        init?() {
            let stream = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
            stream.initialize(to: z_stream())
            guard deflateInit2_(stream, Z_DEFAULT_COMPRESSION, Z_DEFLATED, -windowBits, memoryLevel, Z_DEFAULT_STRATEGY,
                                zlibVersion(), Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
                stream.deallocate()
                return nil
            }
            let dictionarySet = dictionaryV1.withUnsafeBufferPointer {
                deflateSetDictionary(stream, $0.baseAddress, UInt32($0.count))
            }
            guard dictionarySet == Z_OK else {
                deflateEnd(stream)
                stream.deallocate()
                return nil
            }
            self.stream = stream
        }

        deinit {
            deflateEnd(stream)
            stream.deallocate()
        }
    }

    private static let primedDeflater = PrimedDeflater()

    private static func inflate(_ deflated: Data) throws -> Data {
        var stream = z_stream()
        guard inflateInit2_(&stream, -windowBits, zlibVersion(), Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
            throw StoreError.corrupt("a stored payload: zlib cannot start")
        }
        defer { inflateEnd(&stream) }
        let dictionarySet = dictionaryV1.withUnsafeBufferPointer {
            inflateSetDictionary(&stream, $0.baseAddress, UInt32($0.count))
        }
        guard dictionarySet == Z_OK else { throw StoreError.corrupt("a stored payload: zlib refused its dictionary") }
        var payload = Data()
        var chunk = [UInt8](repeating: 0, count: 4096)
        var status = Z_OK
        try deflated.withUnsafeBytes { input in
            stream.next_in = UnsafeMutablePointer(mutating: input.bindMemory(to: UInt8.self).baseAddress)
            stream.avail_in = UInt32(input.count)
            while status == Z_OK {
                status = chunk.withUnsafeMutableBufferPointer { buffer in
                    stream.next_out = buffer.baseAddress
                    stream.avail_out = UInt32(buffer.count)
                    return CZlib.inflate(&stream, Z_NO_FLUSH)
                }
                payload.append(contentsOf: chunk[..<(chunk.count - Int(stream.avail_out))])
                guard payload.count <= largestPayload else {
                    throw StoreError.corrupt("a stored payload that inflates past \(largestPayload) bytes")
                }
                // Input used up before the stream's end: the stored bytes were cut short.
                if status == Z_OK && stream.avail_in == 0 && stream.avail_out > 0 { status = Z_BUF_ERROR }
            }
        }
        guard status == Z_STREAM_END, stream.avail_in == 0 else {
            throw StoreError.corrupt("a stored payload that does not inflate (zlib \(status))")
        }
        return payload
    }

    /// The words of Live Activity, push-to-start and broadcast payloads and of the
    /// shipped content, the commonest last (deflate reaches the dictionary's end
    /// with the shortest distances). Its first line's words are not those of a Push
    /// To Talk payload (`activeSpeaker`, `transmissionID`, `channelID`): such a
    /// push is deflated against the rest. Never edited: see above.
    static let dictionaryV1: [UInt8] = Array(("""
        {"activeRemoteParticipant":{"name":""},"aps":{},"channel":"","speaker":"","message":"",
        "input-push-token":1,"attributes-type":"AdventureAttributes","attributes":{"adventureID":"","bosses":[
        {"avatar":"","id":"goblin-chief","name":"Goblin Chief"},{"avatar":"","id":"old-treant","name":"Old Treant"},
        {"avatar":"","id":"fire-imp","name":"Fire Imp"},{"avatar":"","id":"stone-golem","name":"Stone Golem"},
        {"avatar":"","id":"ember-dragon","name":"Ember Dragon"},{"avatar":"","id":"bat-swarm","name":"Bat Swarm"},
        {"avatar":"","id":"ghost-queen","name":"Ghost Queen"},{"avatar":"","id":"kraken","name":"Kraken"}],
        "endsAt":,"heroID":"","party":[{"avatar":"","id":"mr-spook","name":"Mr. Spook"},{"avatar":"","id":"cake","name":"Cake"},
        {"avatar":"","id":"octo","name":"Octo"}],"routeName":"Whispering Woods","Dragon Peak","Haunted Keep","Gauntlet"},
        "event.adventureEndedByGameMaster","event.areaAttack","event.bossEnraged","event.bossHealed","event.bossShielded",
        "event.criticalHit","event.heroRevived","event.lootFound.common","event.lootFound.rare","event.lootFound.legendary",
        "event.partyWiped","event.potionRejected.heroAtFullHealth","event.potionRejected.noPotionsLeft","event.smallHeal",
        "alert.following.body","alert.following.title","alert.timeLimitReached.body","event.timeLimitReached",
        "alert.bossDefeated.followerBody","alert.defeat.followerBody","alert.victory.followerBody","Defeat.caf",
        "alert.defeat.body","alert.defeat.title","alert.bossDefeated.body","alert.bossDefeated.title","BossDefeated.caf",
        "event":"start","event":"end","dismissal-date":,"Victory! Every boss is defeated.","event.victory",
        "alert":{"body":{"loc-args":[""],"loc-key":"alert.adventureStarted.body"},"sound":"AdventureStart.caf",
        "title":{"loc-key":"alert.adventureStarted.title"}},"alert.victory.body","Victory.caf","alert.victory.title",
        "alert":{"body":{"loc-args":["Power Panda"],"loc-key":"alert.heroKnockedDown.body"},"sound":"HeroDown.caf",
        "title":{"loc-args":["Power Panda"],"loc-key":"alert.heroKnockedDown.title"}},"event.heroKnockedDown",
        " is knocked down!","event.potionUsed","event.bossDefeated","event.nextBossAppears"," appears!",
        "event.damageDealt","isEnraged":true,
        {"aps":{"content-state":{"boss":{"healthLevel":0.9,"id":"thorn-wolf","isEnraged":false,"position":0},
        "currentHealthLevel":0.9,"eventDescription":"Power Panda takes 11 damage from Thorn Wolf","heroes":[
        {"healthLevel":0.9,"id":"power-panda","isKnockedDown":false},{"healthLevel":1,"id":"egghead","isKnockedDown":false},
        {"healthLevel":1,"id":"spouty","isKnockedDown":false}],"latestEvent":{"args":["Power Panda","11","Thorn Wolf"],
        "key":"event.damageTaken"},"potions":3},"event":"update","relevance-score":28,"stale-date":17,"timestamp":17
        """).utf8)
}
