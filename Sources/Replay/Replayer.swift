import Game
import Vocabulary

extension SavedSession {
    /// Plays the session again with `content`, calling `observe` after each tick up
    /// to the tick it was saved at (or its end, if the replay ends sooner).
    public func replay(with content: ReplayContent,
                       observe: (_ state: AdventureState, _ events: [GameEvent]) throws -> Void) throws {
        let adventure = try Verifier.playable(self, content)
        let byTick = Dictionary(grouping: commands, by: \.tick).mapValues { $0.map(\.command) }
        var state = adventure.start()
        var events: [GameEvent] = []
        while state.isRunning, state.tick < lastTick {
            events.removeAll(keepingCapacity: true)
            adventure.tick(&state, commands: byTick[state.tick + 1] ?? [], events: &events)
            try observe(state, events)
        }
    }

    /// The hero each Live Activity followed, by activity id.
    public var heroByActivity: [ActivityID: HeroID] {
        Dictionary(activities.map { ($0.activityID, $0.hero) }, uniquingKeysWith: { first, _ in first })
    }
}
