import Foundation
import Game
import Store
import Vocabulary

/// Finished adventures: the list, what a finished adventure's page adds, and
/// the replay's verdict.
public enum ConsoleFinishedPages {
    public static func list(_ session: ConsoleLayout.SignedIn, _ rows: [ConsoleAdventurePages.Row], names: ConsolePartyPages.Names,
                            next: String?) -> String {
        let e = ConsoleLayout.escape
        let lines = rows.map { row in
            let adventure = row.adventure
            let ended = adventure.endedAt.map { ConsolePages.readable(Date(timeIntervalSince1970: TimeInterval($0))) } ?? "–"
            return """
                <tr data-adventure="\(e(adventure.id.rawValue))"><td><a href="\(ConsolePaths.adventure(adventure.id.rawValue))" class="code">\
                \(e(adventure.id.rawValue))</a></td><td>\(e(row.partyName))</td><td>\(e(names.route(adventure.setup.route)))</td>\
                <td class="outcome">\(e(adventure.status.rawValue))</td><td>\(ended)</td></tr>
                """
        }.joined(separator: "\n")
        let table = rows.isEmpty ? #"<p class="note" id="none-finished">No adventure has ended yet.</p>"#
            : ConsolePartyPages.table("finished", ["Adventure", "Party", "Route", "Outcome", "Ended (UTC)"], lines)
        let pager = next.map { #"<p class="pager"><a href="\#(e($0))" rel="next">Earlier adventures</a></p>"# } ?? ""
        return ConsoleLayout.page(title: "Finished adventures", current: ConsolePaths.finished, signedIn: session, body: """
            \(table)
            \(pager)
            """)
    }

    /// The outcome, duration and pushes of a finished adventure, with its replay, timeline and session file.
    public static func section(_ adventure: StoredAdventure, outbox: [OutboxEntry]) -> String {
        let path = ConsolePaths.adventure(adventure.id.rawValue)
        let duration = adventure.endedAt.map { "\($0 - adventure.startedAt) s" } ?? "–"
        let sent = outbox.filter { $0.state == .sent }
        let byPriority = Dictionary(grouping: sent, by: \.message.priority.rawValue).mapValues(\.count)
        let alerts = sent.count { $0.message.hasAlert }
        let priorities = byPriority.keys.sorted(by: >).map { "\(byPriority[$0]!) at priority \($0)" }.joined(separator: ", ")
        return """
            <section aria-labelledby="outcome-title"><h2 id="outcome-title">Outcome</h2>
            <p id="outcome" data-outcome="\(adventure.status.rawValue)">\(ConsoleLayout.escape(adventure.status.rawValue)) after \
            <span id="duration">\(duration)</span> of game time, at tick \(adventure.lastTick).</p>
            <p id="pushes-sent" data-alerts="\(alerts)">Pushes delivered: \(sent.count)\(priorities.isEmpty ? "" : " (\(priorities))"), \
            \(alerts) with an alert.</p>
            <ul>
            <li><a href="\(path)/replay" id="replay-link">Play it again and compare</a></li>
            <li><a href="\(path)/timeline" id="timeline-link">Its timeline</a></li>
            <li><a href="\(path)/session" id="session-link" download>Download its session file</a></li>
            </ul></section>
            """
    }

    /// What playing the adventure again showed: identical, or where it parted ways.
    public static func replay(_ session: ConsoleLayout.SignedIn, adventure: String, identical: Bool?, summary: String) -> String {
        let verdict = identical.map { $0 ? "identical" : "different" } ?? "not verified"
        return ConsoleLayout.page(title: "Replay of \(adventure)", current: ConsolePaths.finished, signedIn: session, body: """
            <p id="verdict" data-verdict="\(verdict)"><strong>\(verdict.prefix(1).uppercased() + verdict.dropFirst())</strong>: \
            \(ConsoleLayout.escape(summary))</p>
            <p><a href="\(ConsolePaths.adventure(adventure))">Back to the adventure</a></p>
            """)
    }
}
