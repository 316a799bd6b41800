extension Adventure {
    /// Plays the adventure from its start until it ends, applying each command at
    /// its tick (commands for the same tick in the order given). It always ends:
    /// at the latest, the time limit stops it at `setup.lastTick`.
    @discardableResult
    public func playToEnd(
        commands: [ScheduledCommand] = [],
        observe: (_ state: AdventureState, _ events: [GameEvent]) -> Void = { _, _ in }
    ) -> AdventureState {
        let byTick = Dictionary(grouping: commands, by: \.tick).mapValues { $0.map(\.command) }
        var state = start()
        var events: [GameEvent] = []
        while state.isRunning {
            events.removeAll(keepingCapacity: true)
            tick(&state, commands: byTick[state.tick + 1] ?? [], events: &events)
            observe(state, events)
        }
        return state
    }
}
