import Foundation
import Game
import Store
import Vocabulary

/// The party directory and one party's page.
public enum ConsolePartyPages {
    /// What the pages need to name things the store keeps by id.
    public struct Names: Sendable {
        public var hero: @Sendable (HeroID) -> String
        public var route: @Sendable (RouteID) -> String
        public var boss: @Sendable (BossID) -> String

        public init(hero: @escaping @Sendable (HeroID) -> String, route: @escaping @Sendable (RouteID) -> String,
                    boss: @escaping @Sendable (BossID) -> String) {
            self.hero = hero
            self.route = route
            self.boss = boss
        }
    }

    /// `search`: what was typed; `next`: the next page's address, if there is one.
    public static func directory(_ session: ConsoleLayout.SignedIn, search: String, parties: [PartyListing], next: String?) -> String {
        let e = ConsoleLayout.escape
        let rows = parties.map { listing in
            let adventure = listing.runningAdventure == nil ? "–" : #"<span class="running">running</span>"#
            return """
                <tr data-party="\(e(listing.party.id.rawValue))"><td><a href="\(ConsolePaths.party(listing.party.id.rawValue))">\
                \(e(listing.party.name))</a></td><td class="code">\(e(listing.party.inviteCode.rawValue))</td>\
                <td>\(listing.memberCount)</td><td>\(adventure)</td></tr>
                """
        }.joined(separator: "\n")
        let none = search.isEmpty ? "No party yet." : "No party matches '\(e(search))'."
        let table = parties.isEmpty ? #"<p class="note" id="no-parties">\#(none)</p>"# : """
            <div class="table"><table id="parties">
            <thead><tr><th scope="col">Party</th><th scope="col">Invite code</th><th scope="col">Members</th>\
            <th scope="col">Adventure</th></tr></thead>
            <tbody>
            \(rows)
            </tbody></table></div>
            """
        let pager = next.map { #"<p class="pager"><a href="\#(e($0))" rel="next">More parties</a></p>"# } ?? ""
        return ConsoleLayout.page(title: "Parties", current: ConsolePaths.parties, signedIn: session, body: """
            <form method="get" action="\(ConsolePaths.parties)" role="search" class="search">
            <label for="q">Name or invite code</label>
            <input type="search" id="q" name="q" value="\(e(search))" maxlength="\(StoredValueLimits.longestName)">
            <button type="submit">Search</button>
            </form>
            \(table)
            \(pager)
            """)
    }

    /// Everything about one party.
    public struct PartyView: Sendable {
        public var party: Party
        public var members: [PartyMembership]
        public var players: [ConsolePlayer]
        /// The newest first.
        public var adventures: [StoredAdventure]
        /// Of the newest adventure.
        public var activities: [ConsoleActivity]
        public var walkieTalkie: ConsoleWalkieTalkie?

        public init(party: Party, members: [PartyMembership], players: [ConsolePlayer], adventures: [StoredAdventure],
                    activities: [ConsoleActivity], walkieTalkie: ConsoleWalkieTalkie?) {
            self.party = party
            self.members = members
            self.players = players
            self.adventures = adventures
            self.activities = activities
            self.walkieTalkie = walkieTalkie
        }
    }

    /// `extra`: HTML that goes after the party's facts (the start form, when it may start).
    public static func party(_ session: ConsoleLayout.SignedIn, _ view: PartyView, names: Names, extra: String = "",
                             csrfToken: String) -> String {
        let e = ConsoleLayout.escape
        let playerName = { (id: PlayerID) in view.players.first { $0.id == id }?.name ?? id.rawValue }
        let members = view.members.map { member in
            """
            <tr data-player="\(e(member.player.rawValue))"><td>\(e(playerName(member.player)))</td>\
            <td>\(e(names.hero(member.hero)))</td><td>\(ConsolePages.readable(member.joinedAt))</td></tr>
            """
        }.joined(separator: "\n")
        let phones = view.players.flatMap { player in
            player.phones.map { phone in
                let pushToStart = phone.pushToStartRegistered ? "registered"
                    : phone.invalidReason.map { "invalid (\(e($0)))" } ?? "none"
                return """
                    <tr data-device="\(e(phone.device.rawValue))"><td>\(e(player.name))</td><td class="code">\(e(phone.device.rawValue))</td>\
                    <td data-push-to-start="\(phone.pushToStartRegistered)">\(pushToStart)</td>\
                    <td>\(e(phone.locale))</td></tr>
                    """
            }
        }.joined(separator: "\n")
        let activities = view.activities.map { activity in
            let token = activity.tokenInvalidReason.map { "invalid (\(e($0)))" } ?? "valid"
            return """
                <tr data-activity="\(e(activity.id.rawValue))"><td>\(e(playerName(activity.player)))</td>\
                <td>\(e(activity.hero.map(names.hero) ?? "following"))</td>\
                <td data-frequent="\(activity.frequentUpdates)">\(activity.frequentUpdates ? "on" : "off")</td>\
                <td>\(e(activity.locale))</td><td>\(e(activity.status.rawValue))</td>\
                <td data-token="\(activity.tokenInvalidReason == nil ? "valid" : "invalid")">\(token)</td></tr>
                """
        }.joined(separator: "\n")
        let adventures = view.adventures.map { adventure in
            """
            <tr data-adventure="\(e(adventure.id.rawValue))"><td><a class="code" href="\(ConsolePaths.adventure(adventure.id.rawValue))">\
            \(e(adventure.id.rawValue))</a></td>\
            <td>\(e(names.route(adventure.setup.route)))</td><td>\(e(adventure.status.rawValue))</td><td>\(adventure.lastTick)</td></tr>
            """
        }.joined(separator: "\n")
        let walkieTalkie: String = {
            guard let talkie = view.walkieTalkie else { return #"<p id="walkie-talkie" data-state="none">No channel yet.</p>"# }
            let state = talkie.channel.closedAt == nil ? "open" : "closed"
            let listening = talkie.listening.map(playerName).map(e).joined(separator: ", ")
            let close = talkie.channel.closedAt != nil ? "" : """
                <form method="post" action="\(ConsolePaths.party(view.party.id.rawValue))/walkie-talkie/close" id="close-walkie-talkie">\
                \(ConsoleLayout.csrfField(csrfToken))<button type="submit" class="danger">Close the walkie-talkie</button></form>
                """
            return """
                <p id="walkie-talkie" data-state="\(state)">Channel <span class="code">\(e(talkie.channel.id.rawValue))</span>: \(state); \
                listening: \(listening.isEmpty ? "nobody" : listening).</p>
                \(close)
                """
        }()
        return ConsoleLayout.page(title: "Party \(view.party.name)", current: ConsolePaths.parties, signedIn: session, body: """
            <p id="party-facts">Invite code <span class="code" id="invite-code">\(e(view.party.inviteCode.rawValue))</span> · \
            created \(ConsolePages.readable(view.party.createdAt)) · <span class="code">\(e(view.party.id.rawValue))</span></p>
            \(extra)
            <h2>Members and heroes</h2>
            \(table("members", ["Player", "Hero", "Joined (UTC)"], members))
            <h2>Phones</h2>
            \(view.players.allSatisfy(\.phones.isEmpty) ? #"<p class="note">No phone registered for push-to-start.</p>"#
                : table("phones", ["Player", "Device", "Push-to-start", "Language"], phones))
            <h2>Live Activities of the newest adventure</h2>
            \(view.activities.isEmpty ? #"<p class="note">None registered.</p>"#
                : table("activities", ["Player", "Hero", "Frequent updates", "Language", "Status", "Token"], activities))
            <h2>Walkie-talkie</h2>
            \(walkieTalkie)
            <h2>Adventures</h2>
            \(view.adventures.isEmpty ? #"<p class="note">None yet.</p>"# : table("adventures", ["Adventure", "Route", "Status", "Tick"], adventures))
            """)
    }

    /// Where the start form would be while the party is on an adventure; `problem`:
    /// why a start was refused (it began meanwhile, say).
    public static func onAdventure(_ adventure: String, tick: Int, problem: String?) -> String {
        let e = ConsoleLayout.escape
        return (problem.map { #"<p class="error" id="start-error" role="alert">\#(e($0))</p>"# } ?? "")
            + #"<p id="on-adventure" class="running">On adventure <a class="code" href="\#(ConsolePaths.adventure(adventure))">\#(e(adventure))</a>, tick \#(tick).</p>"#
    }

    static func table(_ id: String, _ headings: [String], _ rows: String) -> String {
        """
        <div class="table"><table id="\(id)">
        <thead><tr>\(headings.map { #"<th scope="col">\#(ConsoleLayout.escape($0))</th>"# }.joined())</tr></thead>
        <tbody>
        \(rows)
        </tbody></table></div>
        """
    }
}
