import Foundation
import Game
import PushPolicy
import Store
import Vocabulary
import Wire

/// Plays a whole adventure into a store as the server's ticker stores it (a party
/// of new players, one Live Activity per member, every tick's events, applied
/// commands and push decisions), without a server or a clock: for the replay's
/// tests and benchmark, which need saved adventures of any length quickly.
public struct AdventureRecorder: Sendable {
    public var store: any RangersStore
    public var content: ReplayContent
    public var bundleID = SampleApp.bundleID
    public var policy = PushPolicyConfiguration.standard
    /// Ticks stored per write, as the ticker batches them.
    public var ticksPerWrite = 500
    /// When each write happens, as the store records it (the game's own time is `startedAt`).
    public var now: @Sendable () -> Date = { Date() }

    public init(store: any RangersStore, content: ReplayContent) {
        self.store = store
        self.content = content
    }

    /// Returns the new adventure's id. `setup.party`'s players are replaced by new
    /// ones (the store makes their ids); commands name members by their hero.
    public func record(_ setup: AdventureSetup, commands: [(tick: Int, potionFor: HeroID)] = [],
                       startedAt: Int = 1_767_225_600, frequentUpdates: Bool = false) async throws -> AdventureID {
        var roster: [PartyMember] = []
        var party: PartyID?
        for (index, member) in setup.party.enumerated() {
            let (player, _) = try await store.createPlayer(name: "Ranger \(index + 1)", at: now())
            try await store.pickHeroes([member.hero], for: player.id)
            if let party {
                let code = try await store.party(party).inviteCode.rawValue
                try await store.joinParty(inviteCode: code, player: player.id, hero: member.hero, at: now())
            } else {
                party = try await store.createParty(name: "Rangers", by: player.id, hero: member.hero, at: now()).id
            }
            roster.append(PartyMember(player: player.id, hero: member.hero))
        }
        var setup = setup
        setup.party = roster
        let id = AdventureID.random()
        let pipeline = try TickPipeline(adventureID: id, setup: setup, startedAt: startedAt, content: content.game,
                                        strings: content.strings, configuration: policy)
        var state = pipeline.adventure.start()
        try await store.startAdventure(id: id, party: party!, setup: setup, state: state, startedAt: startedAt,
                                       contentVersion: content.version, outbox: [], at: now())
        var recipients: [LiveActivityRecipient] = []
        for (index, member) in roster.enumerated() {
            let activity = ActivityID("activity-\(index + 1)-\(id.rawValue)")
            try await store.registerLiveActivity(
                activityID: activity, player: member.player, adventure: id, hero: member.hero,
                token: try PushToken(hex: String(format: "%064x", index + 1)), frequentUpdates: frequentUpdates, locale: "en",
                at: now())
            recipients.append(LiveActivityRecipient(activityID: activity, player: member.player, hero: member.hero,
                                                    frequentUpdates: frequentUpdates, language: "en"))
        }
        let playerOf = Dictionary(roster.map { ($0.hero, $0.player) }, uniquingKeysWith: { first, _ in first })
        let potions = Dictionary(grouping: commands, by: \.tick)

        var ledgers: [ActivityID: BudgetLedger] = [:]
        var batch: [TickRecord] = []
        while state.isRunning {
            // Commands are queued one tick at a time, just before the tick that applies them.
            var queued: [QueuedCommand] = []
            for potion in potions[state.tick + 1] ?? [] {
                guard let player = playerOf[potion.potionFor] else { continue }
                queued.append(try await store.enqueueCommand(.usePotion(player: player, hero: potion.potionFor), for: id, receivedAt: now()))
            }
            let outcome = try pipeline.tick(state, commands: queued.map(\.command), recipients: recipients, ledgers: ledgers)
            state = outcome.state
            ledgers = outcome.ledgers
            let outbox = try OutboxMessage.forTick(outcome.decisions, bundleID: bundleID)
            batch.append(TickRecord(adventure: id, tick: state.tick, state: state, events: outcome.events,
                                    appliedCommandIDs: queued.map(\.id), outbox: outbox, ledgers: outcome.spentLedgers))
            if batch.count >= ticksPerWrite || !state.isRunning {
                try await store.recordTicks(batch, at: now()).forEach { _ = try $0.get() }
                batch.removeAll()
            }
        }
        return id
    }
}
