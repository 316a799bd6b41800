import Foundation
import Game

/// A tick's events as both engines store them: one row per tick, the events'
/// canonical JSON texts (`TickRecord.eventTexts`) in order, joined by newlines.
/// A JSON text holds no newline of its own, so the split gives back each text
/// byte for byte. One row and one index entry per tick instead of one per event:
/// the event log was the largest share of a tick's bytes (docs/benchmarks.md).
/// A tick without events has no row.
public enum TickEventsText {
    public static func text(of events: [String]) -> String {
        events.joined(separator: "\n")
    }

    /// The events of one stored row, in order. A row edited to hold a stray
    /// newline or an empty text gives events that do not decode or do not match
    /// the replay's: the log is then refused or found different, never trusted.
    public static func events(in text: String) -> [String] {
        // By byte, not by Character: "\r\n" is one Character, and a text ending
        // in "\r" must not swallow the separator after it.
        text.utf8.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
            .map { String(decoding: $0, as: UTF8.self) }
    }

    /// The rows' events as text, as a replay compares them.
    public static func texts(_ rows: [(tick: Int, events: String)]) -> [LoggedEventText] {
        rows.flatMap { row in events(in: row.events).map { LoggedEventText(tick: row.tick, json: $0) } }
    }

    /// The rows' events decoded, each with its position in its tick; a text that
    /// is not an event is an error, not a crash.
    public static func decoded(_ rows: [(tick: Int, events: String)]) throws -> [LoggedEvent] {
        let decoder = JSONDecoder()
        return try rows.flatMap { row in
            try events(in: row.events).enumerated().map { position, text in
                LoggedEvent(tick: row.tick, position: position, event: try decoder.decode(GameEvent.self, from: Data(text.utf8)))
            }
        }
    }
}
