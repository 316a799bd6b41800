import Foundation
import Wire

/// A Whispering Woods adventure of Power Panda, Egghead and Spouty, seen from
/// Power Panda's Live Activity, and one payload of every kind built from it.
enum Samples {
    static let testsDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()

    static let timestamp = UnixTimestamp(seconds: 1_700_000_000)

    static let party = [
        HeroSummary(id: "power-panda", name: "Power Panda", avatar: "🐼"),
        HeroSummary(id: "egghead", name: "Egghead", avatar: "🦄"),
        HeroSummary(id: "spouty", name: "Spouty", avatar: "🐳"),
    ]

    static let bosses = [
        BossSummary(id: "thorn-wolf", name: "Thorn Wolf", avatar: "🐺"),
        BossSummary(id: "goblin-chief", name: "Goblin Chief", avatar: "👺"),
        BossSummary(id: "old-treant", name: "Old Treant", avatar: "🌳"),
    ]

    static let attributes = AdventureAttributes(
        adventureID: "adv-42", heroID: "power-panda", routeName: "Whispering Woods",
        party: party, bosses: bosses, endsAt: Date(timeIntervalSince1970: 1_700_000_000))

    static let freshState = AdventureAttributes.ContentState(
        currentHealthLevel: 1,
        eventDescription: "The party sets out against Thorn Wolf",
        heroes: party.map { HeroStatus(id: $0.id, healthLevel: 1, isKnockedDown: false) },
        boss: BossStatus(id: "thorn-wolf", healthLevel: 1, isEnraged: false, position: 0),
        latestEvent: EventText(key: "alert.adventureStarted.body", args: ["Power Panda", "Thorn Wolf"]),
        potions: 3)

    static let routineState = AdventureAttributes.ContentState(
        currentHealthLevel: 0.8,
        eventDescription: "Spouty hits Goblin Chief for 42 damage",
        heroes: [
            HeroStatus(id: "power-panda", healthLevel: 0.8, isKnockedDown: false),
            HeroStatus(id: "egghead", healthLevel: 0.65, isKnockedDown: false),
            HeroStatus(id: "spouty", healthLevel: 0.5, isKnockedDown: false),
        ],
        boss: BossStatus(id: "goblin-chief", healthLevel: 0.72, isEnraged: false, position: 1),
        latestEvent: EventText(key: "event.damageDealt", args: ["Spouty", "Goblin Chief", "42"]),
        potions: 3)

    static let knockedDownState = AdventureAttributes.ContentState(
        currentHealthLevel: 0,
        eventDescription: "Power Panda is knocked down!",
        heroes: [
            HeroStatus(id: "power-panda", healthLevel: 0, isKnockedDown: true),
            HeroStatus(id: "egghead", healthLevel: 0.4, isKnockedDown: false),
            HeroStatus(id: "spouty", healthLevel: 0.25, isKnockedDown: false),
        ],
        boss: BossStatus(id: "goblin-chief", healthLevel: 0.31, isEnraged: true, position: 1),
        latestEvent: EventText(key: "event.heroKnockedDown", args: ["Power Panda"]),
        potions: 2)

    static let victoryState = AdventureAttributes.ContentState(
        currentHealthLevel: 0.55,
        eventDescription: "Victory!",
        heroes: [
            HeroStatus(id: "power-panda", healthLevel: 0.55, isKnockedDown: false),
            HeroStatus(id: "egghead", healthLevel: 0.3, isKnockedDown: false),
            HeroStatus(id: "spouty", healthLevel: 0, isKnockedDown: true),
        ],
        boss: BossStatus(id: "old-treant", healthLevel: 0, isEnraged: true, position: 2),
        latestEvent: EventText(key: "event.victory"),
        potions: 0)

    static let heroDownAlert = Alert(
        title: .localized(key: "alert.heroKnockedDown.title", args: ["Power Panda"]),
        body: .localized(key: "alert.heroKnockedDown.body", args: ["Power Panda"]),
        sound: "HeroDown.caf")

    static let startAlert = Alert(
        title: .localized(key: "alert.adventureStarted.title"),
        body: .localized(key: "alert.adventureStarted.body", args: ["Power Panda", "Thorn Wolf"]),
        sound: "AdventureStart.caf")

    // MARK: - One payload of every kind

    static let updateLowPriority = LiveActivityPayload(
        timestamp: timestamp, event: .update(), contentState: routineState,
        staleDate: timestamp.adding(seconds: 60), relevanceScore: 40)

    static let updateWithAlert = LiveActivityPayload(
        timestamp: timestamp.adding(seconds: 10), event: .update(alert: heroDownAlert),
        contentState: knockedDownState, staleDate: timestamp.adding(seconds: 70), relevanceScore: 100)

    static let endWithDismissal = LiveActivityPayload(
        timestamp: timestamp.adding(seconds: 600),
        event: .end(dismissalDate: timestamp.adding(seconds: 600 + 3600)),
        contentState: victoryState, relevanceScore: 50)

    static let pushToStart = LiveActivityPayload(
        timestamp: timestamp.adding(seconds: -3600),
        event: .start(attributes: attributes, alert: startAlert, requestsUpdateToken: true),
        contentState: freshState, staleDate: timestamp.adding(seconds: -3540), relevanceScore: 60)

    static let pushToTalk = PushToTalkPayload(
        activeSpeaker: .init(playerID: "player-1", playerName: "Mai", heroName: "Power Panda", avatar: "🐼"),
        transmissionID: "tx-7f3a", channelID: "adv-42/party")

    static let liveActivityPayloads: [(name: String, payload: LiveActivityPayload)] = [
        ("update-low-priority", updateLowPriority),
        ("update-localized-alert", updateWithAlert),
        ("end-dismissal-date", endWithDismissal),
        ("start-push-to-start", pushToStart),
    ]

    // MARK: - Helpers

    /// The body as a dictionary, to look at keys the way APNs and the phone see them.
    static func jsonObject(_ data: Data) throws -> [String: Any] {
        guard let object = try JSONSerialization.jsonObject(with: data) as? [String: Any] else {
            throw SampleError.notAnObject
        }
        return object
    }

    static func aps(_ data: Data) throws -> [String: Any] {
        guard let aps = try jsonObject(data)["aps"] as? [String: Any] else { throw SampleError.notAnObject }
        return aps
    }

    enum SampleError: Error { case notAnObject }
}
