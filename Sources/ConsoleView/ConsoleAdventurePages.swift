import Foundation
import Game
import Store
import Vocabulary

/// Running adventures: the list, one adventure's page, the end's confirmation.
public enum ConsoleAdventurePages {
    /// How often a page about running adventures loads itself again (an
    /// adventure's own page follows its live stream instead, where scripts run).
    public static let refreshSeconds = 2

    public struct Row: Sendable {
        public var adventure: StoredAdventure
        public var partyName: String

        public init(adventure: StoredAdventure, partyName: String) {
            self.adventure = adventure
            self.partyName = partyName
        }
    }

    public static func running(_ session: ConsoleLayout.SignedIn, _ rows: [Row], names: ConsolePartyPages.Names) -> String {
        let e = ConsoleLayout.escape
        let lines = rows.map { row in
            """
            <tr data-adventure="\(e(row.adventure.id.rawValue))"><td><a href="\(ConsolePaths.adventure(row.adventure.id.rawValue))" class="code">\
            \(e(row.adventure.id.rawValue))</a></td><td>\(e(row.partyName))</td><td>\(e(names.route(row.adventure.setup.route)))</td>\
            <td class="tick">\(row.adventure.lastTick)</td></tr>
            """
        }.joined(separator: "\n")
        let table = rows.isEmpty ? #"<p class="note" id="none-running">No adventure is running.</p>"#
            : ConsolePartyPages.table("running", ["Adventure", "Party", "Route", "Tick"], lines)
        return ConsoleLayout.page(title: "Running adventures", current: ConsolePaths.adventures, signedIn: session,
                                  refresh: refreshSeconds * 2, body: """
            <p class="note">Start one from a party's page. This page loads itself again every \(refreshSeconds * 2) s.</p>
            \(table)
            """)
    }

    /// One adventure as the console shows it.
    public struct Detail: Sendable {
        public var adventure: StoredAdventure
        public var partyName: String
        /// Pushes decided for it, by what became of them.
        public var pushes: [OutboxState: Int]
        /// APNs' last answers, the newest first.
        public var lastAnswers: [PushLogEntry]
        public var followers: Int
        public var followerChannels: Int
        /// The live page, with a link's token the console made.
        public var livePage: String
        /// The end is queued for the next tick.
        public var endRequested: Bool
        /// The node playing it now, while it runs.
        public var holder: String?

        public init(adventure: StoredAdventure, partyName: String, pushes: [OutboxState: Int], lastAnswers: [PushLogEntry],
                    followers: Int, followerChannels: Int, livePage: String, endRequested: Bool, holder: String?) {
            self.adventure = adventure
            self.partyName = partyName
            self.pushes = pushes
            self.lastAnswers = lastAnswers
            self.followers = followers
            self.followerChannels = followerChannels
            self.livePage = livePage
            self.endRequested = endRequested
            self.holder = holder
        }
    }

    /// `extra`: what a finished adventure adds (its outcome, replay, files).
    public static func detail(_ session: ConsoleLayout.SignedIn, _ detail: Detail, names: ConsolePartyPages.Names, extra: String = "") -> String {
        let e = ConsoleLayout.escape
        let adventure = detail.adventure
        let running = adventure.status == .running
        let heroes = adventure.state.heroes.map { hero in
            """
            <tr data-hero="\(e(hero.hero.rawValue))"><td>\(e(names.hero(hero.hero)))</td>\
            <td class="health">\(hero.health) / \(hero.maxHealth)</td></tr>
            """
        }.joined(separator: "\n")
        let boss = adventure.state.boss
        let answers = detail.lastAnswers.map { entry in
            """
            <tr><td>\(entry.tick.map(String.init) ?? "–")</td><td>\(e(entry.target.kind.rawValue))</td><td>\(entry.priority.rawValue)</td>\
            <td>\(entry.status.map(String.init) ?? "–")</td><td>\(e(entry.reason ?? ""))</td></tr>
            """
        }.joined(separator: "\n")
        let sent = detail.pushes[.sent, default: 0]
        let pending = detail.pushes[.pending, default: 0] + detail.pushes[.sending, default: 0]
        let failed = detail.pushes[.failed, default: 0] + detail.pushes[.dropped, default: 0]
        let end: String
        if running {
            end = detail.endRequested ? #"<p id="end-requested" class="note">The end is queued for the next tick.</p>"#
                : #"<p><a href="\#(ConsolePaths.adventure(adventure.id.rawValue))/end" id="end-link">End this adventure…</a></p>"#
        } else {
            end = ""
        }
        return ConsoleLayout.page(title: "Adventure \(adventure.id.rawValue)", current: running ? ConsolePaths.adventures : nil,
                                  signedIn: session, refresh: running ? refreshSeconds : nil,
                                  follow: running ? Self.events(ofLivePage: detail.livePage) : nil, body: """
            <p id="facts">Party <a href="\(ConsolePaths.party(adventure.party.rawValue))">\(e(detail.partyName))</a> · \
            \(e(names.route(adventure.setup.route))) · a tick every \(adventure.setup.tickInterval) s · \
            status <span id="status" data-status="\(adventure.status.rawValue)">\(e(adventure.status.rawValue))</span> · \
            tick <span id="tick">\(adventure.lastTick)</span>\
            \(running ? " · played by node <span id=\"holder\" class=\"code\">\(e(detail.holder ?? "none now: a node takes it at its next pass"))</span>" : "")</p>
            <p><a href="\(e(detail.livePage))" id="live-link">The live page</a> (what each phone shows)</p>
            \(end)
            \(extra)
            <h2>Boss</h2>
            <p id="boss">\(e(names.boss(boss.boss))) (\(e(boss.rank.rawValue))): <span class="health">\(boss.health) / \(boss.maxHealth)</span>\
            \(boss.shield > 0 ? ", shield \(boss.shield)" : "")\(boss.enraged ? ", enraged" : "")</p>
            <h2>Heroes</h2>
            \(ConsolePartyPages.table("heroes", ["Hero", "Health"], heroes))
            <h2>Pushes</h2>
            <p id="pushes" data-sent="\(sent)" data-pending="\(pending)" data-failed="\(failed)">\(sent) sent · \(pending) waiting · \
            \(failed) not delivered · followers \(detail.followers) on \(detail.followerChannels) channel(s)</p>
            \(detail.lastAnswers.isEmpty ? #"<p class="note">No answer from APNs yet.</p>"#
                : ConsolePartyPages.table("answers", ["Tick", "To", "Priority", "APNs", "Reason"], answers))
            """)
    }

    /// The live page's event stream, from the page's link (`/live/adventures/{id}?token=…`).
    static func events(ofLivePage link: String) -> String {
        guard let query = link.firstIndex(of: "?") else { return link + "/events" }
        return link[..<query] + "/events" + link[query...]
    }

    /// The end's confirmation: a page of its own, so that no refresh and no stray
    /// click ends an adventure.
    public static func confirmEnd(_ session: ConsoleLayout.SignedIn, adventure: StoredAdventure, partyName: String) -> String {
        let e = ConsoleLayout.escape
        let path = ConsolePaths.adventure(adventure.id.rawValue)
        return ConsoleLayout.page(title: "End adventure \(adventure.id.rawValue)?", current: ConsolePaths.adventures, signedIn: session, body: """
            <p>Party \(e(partyName)) is at tick \(adventure.lastTick). The end is applied at the next tick, as if the game master \
            had called it from the API; it cannot be taken back.</p>
            <form method="post" action="\(path)/end" id="end">
            \(ConsoleLayout.csrfField(session.csrfToken))
            <input type="hidden" name="confirm" value="yes">
            <p><button type="submit" class="danger">End the adventure</button> <a href="\(path)">Cancel</a></p>
            </form>
            """)
    }
}
