import CZlib
import Foundation

/// How PostgreSQL keeps an adventure's state and a tick's events: the canonical
/// JSON texts (`CanonicalJSON`, `TickEventsText`) deflated against a dictionary of
/// the words they are made of, a ~610-byte state in ~180 bytes and a tick's
/// ~370 bytes of events in ~50. The state is written over at every tick and the
/// events once, so after the payloads they are the most of a tick's bytes that a
/// PostgreSQL record holds as they are (docs/benchmarks.md). SQLite keeps them as
/// text: its log is within its target already, and its one writer's time is what
/// bounds it.
///
/// The stored form says which it is by its first byte:
/// - `{`: the text as it is, as every state and tick's events were stored before,
///   and as one still is when compressing it would not make it smaller;
/// - `0x02`: raw deflate of the text with `dictionaryV1` preset (`PresetDeflate`).
///
/// No bytes is no text: a tick without events.
public enum StoredGameText {
    static let deflatedWithV1: UInt8 = 0x02

    /// 4 KiB window, `memLevel` 3: the dictionary and a state or a tick's events
    /// fit in it, and a smaller stream is cheaper to copy. Level 6, not the
    /// payloads' 3: level 3 would save the node some 36,000 instructions a tick
    /// but write some 10 bytes more, and it is PostgreSQL's log that is further
    /// from its target (docs/benchmarks.md).
    private static let v1 = PresetDeflate(mark: deflatedWithV1, dictionary: dictionaryV1, windowBits: 12,
                                          writing: .init(windowBits: 12, memoryLevel: 3, level: Z_DEFAULT_COMPRESSION),
                                          largest: 1 << 20, what: "a stored state or tick's events")

    /// The bytes to store for `text`.
    public static func stored(_ text: String) -> Data {
        guard !text.isEmpty else { return Data() }
        var text = text
        return text.withUTF8 { v1.stored(UnsafeRawBufferPointer($0)) }
    }

    /// The text that `stored` kept.
    public static func text(fromStored stored: Data) throws -> String {
        guard !stored.isEmpty else { return "" }
        guard let text = String(validating: try v1.value(fromStored: stored), as: UTF8.self) else {
            throw StoreError.corrupt("a stored state or tick's events that is not UTF-8")
        }
        return text
    }

    /// The words of a state and of events in their canonical JSON, with the shipped
    /// heroes and bosses, the commonest last (deflate reaches the dictionary's end
    /// with the shortest distances): a state's skeleton, then a tick's usual
    /// events. Never edited: see above.
    static let dictionaryV1: [UInt8] = Array(("""
        {"hero":"","player":"","reason":"heroNotInParty","type":"potionRejected"}{"reason":"heroAtFullHealth"}{"reason":"noPotionsLeft"}
        {"boss":"","type":"adventureEndedByGameMaster"}"status":"endedByGameMaster","type":"timeLimitReached"}"status":"timeLimitReached",
        "type":"partyWiped"}"status":"defeat","type":"victory"}"status":"victory",
        {"boss":"fire-imp","enraged":false,"health":650,"maxHealth":650,"rank":"minion","shield":0,"usedHealPhase":false,"usedShieldPhase":false}
        {"boss":"stone-golem","enraged":false,"health":1800,"maxHealth":1800,"rank":"main",
        {"boss":"ember-dragon","enraged":false,"health":2600,"maxHealth":2600,"rank":"main",
        {"boss":"bat-swarm","enraged":false,"health":600,"maxHealth":600,"rank":"minion",
        {"boss":"ghost-queen","enraged":false,"health":2000,"maxHealth":2000,"rank":"main",
        {"boss":"kraken","enraged":false,"health":2800,"maxHealth":2800,"rank":"main",
        {"boss":"old-treant","enraged":false,"health":2200,"maxHealth":2200,"rank":"main",
        {"boss":"thorn-wolf","enraged":false,"health":700,"maxHealth":700,"rank":"minion",
        {"health":200,"hero":"cake","maxHealth":200,"player":"
        {"health":220,"hero":"octo","maxHealth":220,"player":"
        {"health":170,"hero":"mr-spook","maxHealth":170,"player":"
        {"boss":"","hero":"","rank":"minion","type":"bossDefeated"}{"boss":"","type":"nextBossAppears"}
        {"hero":"","rarity":"legendary","type":"lootFound"}{"hero":"","rarity":"rare","type":"lootFound"}{"hero":"","rarity":"common","type":"lootFound"}
        {"hero":"","type":"heroRevived"}{"amount":,"hero":"","player":"","type":"potionUsed"}
        {"boss":"","type":"bossEnraged"}{"amount":,"boss":"","type":"bossHealed"}{"amount":,"boss":"","type":"bossShielded"}
        {"boss":"","hero":"","type":"heroKnockedDown"}
        {"amount":,"healer":"egghead","hero":"","type":"smallHeal"}
        {"amount":,"blocked":0,"boss":"","hero":"","type":"criticalHit"}
        {"boss":"goblin-chief","type":"areaAttack"}
        {"amount":,"boss":"goblin-chief","hero":"power-panda","type":"damageTaken"}
        {"amount":,"blocked":0,"boss":"goblin-chief","hero":"spouty","type":"damageDealt"}
        {"boss":{"boss":"goblin-chief","enraged":false,"health":,"maxHealth":1500,"rank":"main","shield":0,"usedHealPhase":false,"usedShieldPhase":false},
        "bossIndex":0,"heroes":[{"health":190,"hero":"egghead","maxHealth":190,"player":"
        "},{"health":300,"hero":"power-panda","maxHealth":300,"player":"
        "},{"health":230,"hero":"spouty","maxHealth":230,"player":"
        "}],"potions":3,"random":{"s0":,"s1":,"s2":,"s3":},"status":"running","tick":
        """).utf8)
}
