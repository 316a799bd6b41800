import Game
import Vocabulary

/// What both engines decide the same way when an adventure starts and when a
/// command or the game master's end is queued: each engine reads the rows
/// (under its own locks), this says what they mean.
public enum AdventureRules {
    /// Every roster member is still in the party with that hero (`members`, read
    /// now), and the party has no adventure running (`running`).
    public static func checkStart(roster: [PartyMember], partyName: String, members: Set<PartyMember>,
                                  running: AdventureID?) throws(StoreError) {
        if let stranger = roster.first(where: { !members.contains($0) }) {
            throw .conflict("player \(stranger.player) with hero '\(stranger.hero)' is not in party '\(partyName)'")
        }
        if let running { throw .conflict("party '\(partyName)' already has adventure \(running) running") }
    }

    /// Only a running adventure takes commands.
    public static func checkTakesCommands(_ adventure: AdventureID, status: AdventureStatus) throws(StoreError) {
        guard status == .running else {
            throw .conflict("adventure \(adventure) has ended (\(status.rawValue)); it takes no commands")
        }
    }

    public enum EndRequest: Hashable, Sendable {
        /// An end is queued already: that one stands, nothing is written.
        case queuedAlready(QueuedCommand)
        case queue
    }

    /// The game master's end is queued once however often it is asked for
    /// (`queued`: the end waiting for the next tick, if any), and only while the
    /// adventure runs.
    public static func endRequest(_ adventure: AdventureID, status: AdventureStatus,
                                  queued: QueuedCommand?) throws(StoreError) -> EndRequest {
        guard status == .running else { throw .conflict("adventure \(adventure) has already ended (\(status.rawValue))") }
        return queued.map(EndRequest.queuedAlready) ?? .queue
    }
}
