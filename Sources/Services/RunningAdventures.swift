import Catalog
import Foundation
import Game
import NIOConcurrencyHelpers
import PushPolicy
import Store
import Vocabulary

/// What the ticker holds of each running adventure between passes: its tick
/// pipeline (rules and push policy), made once from the stored setup; the adventure as the ticker last
/// committed it, its reachable activities as of their last change and their
/// budgets, so a pass reads from the store only what may have changed (commands,
/// followers' channels, activities that changed); the last failure reported.
///
/// The store stays the truth: a due adventure whose stored `lastTick` is not the
/// one held here (a restart, a tick stored by someone else, a refused commit) is
/// read again in full.
final class RunningAdventures: @unchecked Sendable {
    private struct Entry {
        var adventure: StoredAdventure
        var ledgers: [ActivityID: BudgetLedger]
        var activities: HeldActivities?
    }

    private struct HeldActivities {
        /// `DueAdventure.activityChanges` when they were read.
        var changes: Int
        var members: [LiveActivityRecipient]
        var followers: [FollowerActivityRecipient]
    }

    private let lock = NIOLock()
    private var entries: [AdventureID: Entry] = [:]
    private var pipelines: [AdventureID: TickPipeline] = [:]
    /// A pipeline per route and heroes, whose resolved rules the next adventure of
    /// the same route and heroes shares: a few hundred kinds of party at most.
    private var rosters: [AdventureSetup.RulesKey: TickPipeline] = [:]
    private var failures: [AdventureID: String] = [:]

    func isKnown(_ id: AdventureID, atTick lastTick: Int) -> Bool {
        lock.withLock { entries[id]?.adventure.lastTick == lastTick }
    }

    func hasLedger(_ id: AdventureID, _ activity: ActivityID) -> Bool {
        lock.withLock { entries[id]?.ledgers[activity] != nil }
    }

    func hasActivities(_ id: AdventureID, asOf changes: Int) -> Bool {
        lock.withLock { entries[id]?.activities?.changes == changes }
    }

    /// What the store need not read again.
    var holdings: HeldByReader {
        HeldByReader(adventure: { [self] in isKnown($0, atTick: $1) }, activities: { [self] in hasActivities($0, asOf: $1) },
                     ledger: { [self] in hasLedger($0, $1) })
    }

    /// The tick's inputs: the adventure and its activities as held or as just
    /// read, the commands and channels as read, each activity with its budget.
    func inputs(for due: DueAdventure) -> TickInputs? {
        lock.withLock {
            if let stored = due.stored { entries[due.id] = Entry(adventure: stored, ledgers: [:]) }
            guard var entry = entries[due.id] else { return nil }
            if let read = due.activities {
                // A budget not read is the one held; an activity new to the ticker starts with none spent.
                let readLedgers = read.ledgers(of: entry.adventure)
                var ledgers: [ActivityID: BudgetLedger] = [:]
                for id in read.members.map(\.recipient.activityID) + read.followers.map(\.recipient.activityID) {
                    ledgers[id] = readLedgers[id] ?? entry.ledgers[id] ?? BudgetLedger()
                }
                entry.ledgers = ledgers
                entry.activities = HeldActivities(changes: due.activityChanges, members: read.members.map(\.recipient),
                                                  followers: read.followers.map(\.recipient))
                entries[due.id] = entry
            }
            // The store reads the activities whenever the adventure is not held at its
            // tick, so this is not met; if it were, the next pass reads it in full.
            guard let activities = entry.activities else {
                entries[due.id] = nil
                return nil
            }
            // A channel's budget is read with it every pass: channels are few, and one
            // may open or be made again between two ticks.
            return TickInputs(adventure: entry.adventure, commands: due.commands,
                              recipients: activities.members, ledgers: entry.ledgers,
                              followers: Followers(channels: due.followerChannels.map(\.recipient), activities: activities.followers),
                              followerLedgers: Dictionary(uniqueKeysWithValues: due.followerChannels.map {
                                  ($0.recipient.channel, $0.ledger)
                              }))
        }
    }

    /// The tick is stored: hold its state and budgets, or let go of an adventure that ended.
    func committed(_ record: TickRecord, _ stored: StoredTick) {
        lock.withLock {
            guard stored.status == .running else {
                forgetLocked(record.adventure)
                return
            }
            guard var entry = entries[record.adventure] else { return }
            entry.adventure.state = record.state
            entry.adventure.lastTick = stored.lastTick
            entry.adventure.nextTickAt = stored.nextTickAt
            entry.ledgers.merge(record.ledgers) { _, new in new }
            // A budget a push changed and the tick did not write back: held as the
            // store would give it back, from the push (`DueActivities.ledgers(of:)`).
            for message in record.outbox {
                if case .liveActivity(let activity) = message.target, let held = entry.ledgers[activity] {
                    entry.ledgers[activity] = entry.adventure.resumed(held, newestPushTick: record.tick)
                }
            }
            entries[record.adventure] = entry
        }
    }

    /// When the adventure's tick `tick` fell due (its game time and phase), if it is held.
    func dueInstant(of id: AdventureID, tick: Int) -> Date? {
        lock.withLock { entries[id]?.adventure.dueInstant(ofTick: tick) }
    }

    func pipeline(for adventure: StoredAdventure, content: LoadedContent,
                  configuration: PushPolicyConfiguration) throws -> TickPipeline {
        let roster = adventure.setup.rulesKey
        let (cached, sibling) = lock.withLock { (pipelines[adventure.id], rosters[roster]) }
        if let cached { return cached }
        let pipeline = try TickPipeline(adventureID: adventure.id, setup: adventure.setup, startedAt: adventure.startedAt,
                                        content: content.game, strings: content.strings, configuration: configuration,
                                        sharingWith: sibling)
        lock.withLock {
            pipelines[adventure.id] = pipeline
            if rosters[roster] == nil { rosters[roster] = pipeline }
        }
        return pipeline
    }

    func hasPipeline(for adventure: AdventureID) -> Bool {
        lock.withLock { pipelines[adventure] != nil }
    }

    /// Lets go of every adventure not in `held` (its lease was lost or given up);
    /// returns how many are held now.
    func keepOnly(_ held: HeldAdventures) -> Int {
        lock.withLock {
            for id in entries.keys where !held.contains(id) { forgetLocked(id) }
            for id in pipelines.keys where !held.contains(id) { forgetLocked(id) }
            return entries.count
        }
    }

    func forget(_ adventure: AdventureID) {
        lock.withLock { forgetLocked(adventure) }
    }

    private func forgetLocked(_ adventure: AdventureID) {
        entries[adventure] = nil
        pipelines[adventure] = nil
        failures[adventure] = nil
    }

    /// True the first time this error is seen for the adventure.
    func isNewFailure(of adventure: AdventureID, error: String) -> Bool {
        lock.withLock {
            guard failures[adventure] != error else { return false }
            failures[adventure] = error
            return true
        }
    }
}

/// How many adventures this node's ticker holds, for `/healthz`.
public final class AdventuresHeld: @unchecked Sendable {
    private let lock = NIOLock()
    private var value = 0

    public init() {}

    public var count: Int {
        get { lock.withLock { value } }
        set { lock.withLock { value = newValue } }
    }
}
