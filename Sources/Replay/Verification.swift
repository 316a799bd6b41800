import Catalog
import Game
import PushPolicy

/// What playing a saved session again showed.
public struct VerificationReport: Hashable, Sendable {
    /// Ticks played and compared.
    public var ticks: Int
    /// Events in the saved log.
    public var events: Int
    /// Push decisions the server kept for the adventure.
    public var pushes: Int
    /// Nil when every tick matched.
    public var divergence: Divergence?

    public var isIdentical: Bool { divergence == nil }
}

/// The first place where the replay and the saved log part ways.
public struct Divergence: Hashable, Sendable {
    public enum Difference: Hashable, Sendable {
        /// Event `position` of the tick (from 0); nil where one side has no such event
        /// (or the saved one is not a readable event: see `savedText`).
        case event(position: Int, saved: GameEvent?, replayed: GameEvent?)
        /// The same events, but the adventure stood differently after the tick.
        case status(saved: AdventureStatus, replayed: AdventureStatus)
    }

    public var tick: Int
    public var difference: Difference
    /// The saved event as it was saved, also when it cannot be read as an event.
    public var savedText: String?
}

public enum VerificationError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The content the adventure ran with is not the content at hand: a replay
    /// would differ for that reason alone.
    case contentChanged(recorded: String, current: String)
    /// The session cannot be played: its setup does not fit its content, or its
    /// content does not load.
    case unplayable(String)

    public var description: String {
        switch self {
        case .contentChanged(let recorded, let current):
            "content changed: the adventure ran with content version \(recorded), the content loaded now is "
                + "version \(current). Replaying it with other content would report differences that are not "
                + "the game's; replay it with the content it ran with (a session file carries its own)."
        case .unplayable(let message):
            "the session cannot be played: \(message)"
        }
    }
}

/// The content a session is played with: the game data, the string catalog for
/// alerts and fallback texts, and its version.
public struct ReplayContent: Sendable {
    public var game: GameContent
    public var strings: StringCatalog
    public var version: String

    public init(game: GameContent, strings: StringCatalog, version: String) {
        self.game = game
        self.strings = strings
        self.version = version
    }

    public init(_ loaded: LoadedContent) {
        self.init(game: loaded.game, strings: loaded.strings, version: loaded.version)
    }

    /// The session's own snapshot, checked as Content/ is checked at start for what
    /// a session plays again: the members' pushes (its catalog may predate followers').
    public init(snapshotOf session: SavedSession) throws(VerificationError) {
        do {
            let (game, strings) = try session.content.load(requiring: PushPolicy.memberContentRequirements)
            self.init(game: game, strings: strings, version: session.content.version)
        } catch {
            throw .unplayable("its content snapshot does not load: \(error)")
        }
    }
}

public enum Verifier {
    /// Plays the session again from its setup and commands with `content`, tick by
    /// tick up to the tick it was saved at, and compares each tick's events with
    /// the saved log.
    public static func verify(_ session: SavedSession, with content: ReplayContent) throws(VerificationError)
        -> VerificationReport
    {
        guard content.version == session.contentVersion else {
            throw .contentChanged(recorded: session.contentVersion, current: content.version)
        }
        var report = VerificationReport(ticks: 0, events: session.events.count, pushes: session.pushes.count)
        let saved = session.events
        var next = 0
        var status = AdventureStatus.running
        do {
            try session.replay(with: content) { state, replayed in
                let tick = state.tick
                report.ticks = tick
                status = state.status
                var position = 0
                while position < replayed.count || (next < saved.count && saved[next].tick == tick) {
                    let savedEntry = next < saved.count && saved[next].tick == tick ? saved[next] : nil
                    let replayedEvent = position < replayed.count ? replayed[position] : nil
                    if !matches(savedEntry, replayedEvent) {
                        report.divergence = Divergence(tick: tick, difference: .event(
                            position: position, saved: try? savedEntry?.decoded(), replayed: replayedEvent),
                                                       savedText: savedEntry?.json)
                        throw FirstDivergence()
                    }
                    position += 1
                    next += 1
                }
            }
        } catch is FirstDivergence {
            return report
        } catch let error as VerificationError {
            throw error
        } catch {
            throw .unplayable("\(error)")
        }
        if next < saved.count {
            // The replay ended (or reached the saved tick) while the log goes on.
            report.divergence = Divergence(tick: saved[next].tick, difference: .event(
                position: 0, saved: try? saved[next].decoded(), replayed: nil), savedText: saved[next].json)
        } else if status != session.status || report.ticks != session.lastTick {
            report.divergence = Divergence(tick: report.ticks, difference: .status(saved: session.status, replayed: status),
                                           savedText: nil)
        }
        return report
    }

    private struct FirstDivergence: Error {}

    /// Text first: the saved text is what the store or the file holds, written the
    /// way `CanonicalJSON` writes it, so equal events almost always have equal text.
    /// Text written another way (spacing, key order) is decoded and compared as events.
    private static func matches(_ saved: SessionEvent?, _ replayed: GameEvent?) -> Bool {
        switch (saved, replayed) {
        case (nil, nil): true
        case (let saved?, let replayed?):
            saved.json == CanonicalJSON.text(of: replayed) || (try? saved.decoded()) == replayed
        default: false
        }
    }

    static func playable(_ session: SavedSession, _ content: ReplayContent) throws(VerificationError) -> Adventure {
        let adventure: Adventure
        do {
            adventure = try Adventure(setup: session.setup, content: content.game)
        } catch {
            throw .unplayable(error.description)
        }
        guard (0...session.setup.lastTick).contains(session.lastTick) else {
            throw .unplayable("it was saved at tick \(session.lastTick); its time limit ends it by tick \(session.setup.lastTick)")
        }
        if let command = session.commands.first(where: { !(1...session.setup.lastTick).contains($0.tick) }) {
            throw .unplayable("a command is scheduled for tick \(command.tick), outside 1…\(session.setup.lastTick)")
        }
        if let event = zip(session.events, session.events.dropFirst()).first(where: { $0.tick > $1.tick }) {
            throw .unplayable("the event log goes back from tick \(event.0.tick) to tick \(event.1.tick)")
        }
        return adventure
    }
}
