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
/// one takes a new first byte, and the old one stays for what it wrote
/// (`PresetDeflate`).
public enum StoredPayload {
    static let deflatedWithV1: UInt8 = 0x01

    /// The form's 8 KiB window lets a payload up to 4 KB refer to the whole
    /// dictionary. It is written with a 4 KiB window at level 3, for under half
    /// the instructions of the settings first taken (an 8 KiB window, level 6):
    /// the dictionary and an update fit in the smaller window, and the lower
    /// level costs a payload some 6 bytes, which the store's log can spare
    /// better than its writer can the time (docs/benchmarks.md).
    /// An APNs payload is at most 5 KB; a stored one that inflates past 1 MiB is corrupt.
    private static let v1 = PresetDeflate(mark: deflatedWithV1, dictionary: dictionaryV1, windowBits: 13,
                                          writing: .init(windowBits: 12, memoryLevel: 4, level: 3),
                                          largest: 1 << 20, what: "a stored payload")

    /// The bytes to store for `payload`.
    public static func stored(_ payload: Data) -> Data {
        payload.withUnsafeBytes { v1.stored($0) }
    }

    /// The payload that `stored` kept.
    public static func payload(fromStored stored: Data) throws -> Data {
        try v1.value(fromStored: stored)
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
