import Game
import Vocabulary

/// What both engines decide the same way when a tick is stored: each engine
/// reads (or fences on) the adventure's row, this says why a tick is refused.
public enum TickRules {
    /// What a tick must be whatever is stored: a tick after the start, the state
    /// of that tick, each command applied once.
    public static func refusal(of record: TickRecord) -> StoreError? {
        guard record.tick >= 1 else { return .invalid("ticks count from 1, not \(record.tick)") }
        guard record.state.tick == record.tick else {
            return .invalid("the state passed for tick \(record.tick) is the state of tick \(record.state.tick)")
        }
        guard Set(record.appliedCommandIDs).count == record.appliedCommandIDs.count else {
            return .invalid("a command cannot be applied twice in one tick")
        }
        return nil
    }

    /// The adventure's row as a tick is checked against it.
    public struct Stored: Hashable, Sendable {
        /// As stored (an `AdventureStatus`' raw value).
        public var status: String
        public var lastTick: Int
        /// Another live node that holds the adventure's lease; nil when none or this one.
        public var otherHolder: String?

        public init(status: String, lastTick: Int, otherHolder: String? = nil) {
            self.status = status
            self.lastTick = lastTick
            self.otherHolder = otherHolder
        }
    }

    /// Nil when `record` may follow what is stored (`stored`; nil: no such
    /// adventure): a tick is stored once, right after the one before, while the
    /// adventure runs and no other node holds it.
    public static func fenceRefusal(_ record: TickRecord, stored: Stored?) -> StoreError? {
        let adventure = record.adventure
        guard let stored else { return .unknownAdventure(adventure) }
        guard stored.status == AdventureStatus.running.rawValue else {
            return .conflict("adventure \(adventure) has ended (\(stored.status)); tick \(record.tick) cannot follow")
        }
        guard stored.lastTick == record.tick - 1 else { return notAfter(record, lastTick: stored.lastTick) }
        if let holder = stored.otherHolder {
            return .conflict("adventure \(adventure) is held by node \(holder); this node's lease on it ran out")
        }
        return nil
    }

    /// The tick does not follow the one stored.
    public static func notAfter(_ record: TickRecord, lastTick: Int) -> StoreError {
        .conflict("adventure \(record.adventure) is at tick \(lastTick); tick \(record.tick) cannot be stored after it")
    }

    /// A budget the tick spent belongs to no activity of its adventure.
    public static func strangerActivity(_ id: String, of adventure: AdventureID) -> StoreError {
        .notFound("activity of adventure \(adventure)", id: id)
    }

    /// A budget the tick spent belongs to no followers' channel of its adventure.
    public static func strangerFollowersChannel(_ id: String, of adventure: AdventureID) -> StoreError {
        .notFound("followers' channel of adventure \(adventure)", id: id)
    }

    /// A command the tick applied is no longer waiting in its adventure.
    public static func commandNotWaiting(_ command: CommandID, in adventure: AdventureID) -> StoreError {
        .conflict("command \(command) is not waiting in adventure \(adventure); it may have been applied already")
    }
}
