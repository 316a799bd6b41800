import ConsoleView
import Foundation
import Hummingbird
import Store
import Vocabulary

/// The console's party directory and party pages.
extension RangersAPI {
    static let partiesPage = 25

    /// `GET /console/parties[?q=…][&after=<name>&afterID=<id>]`: the directory, a page at a time.
    func consoleParties(_ request: Request) async throws -> Response {
        try await consolePage {
            let session = try await consoleGate.session(request)
            let query = request.uri.queryParameters
            let typed = query["q"].map(String.init) ?? ""
            let after: PartyDirectoryCursor?
            switch (query["after"].map(String.init), query["afterID"].map(String.init)) {
            case (nil, nil): after = nil
            case let (name?, id?) where !id.isEmpty: after = PartyDirectoryCursor(name: name, id: PartyID(id))
            default: throw ConsoleRefusal.invalid("'after' and 'afterID' go together: use the page's “More parties” link.")
            }
            let search = PartySearch(typed)
            var found = try await store.partyDirectory(search: search, after: after, limit: Self.partiesPage + 1)
            // Text that reads as an invite code but is no party's may still be part of a name.
            if found.isEmpty, let asName = search?.asName {
                found = try await store.partyDirectory(search: asName, after: after, limit: Self.partiesPage + 1)
            }
            let shown = Array(found.prefix(Self.partiesPage))
            let next = found.count > Self.partiesPage ? shown.last.map { last in
                var items = [URLQueryItem(name: "after", value: last.party.name), URLQueryItem(name: "afterID", value: last.party.id.rawValue)]
                if !typed.isEmpty { items.insert(URLQueryItem(name: "q", value: typed), at: 0) }
                var components = URLComponents()
                components.path = ConsolePaths.parties
                components.queryItems = items
                return components.string ?? ConsolePaths.parties
            } : nil
            return Self.page(ConsolePartyPages.directory(Self.signedIn(session), search: typed, parties: shown, next: next))
        }
    }

    /// `GET /console/parties/{partyID}`: the party, its members, heroes, phones, activities, walkie-talkie, adventures.
    func consoleParty(_ request: Request, id: PathParameter<PartyID>) async throws -> Response {
        try await consolePage {
            try await partyPage(try id.checked(), session: try await consoleGate.session(request))
        }
    }

    func partyView(_ id: PartyID) async throws -> ConsolePartyPages.PartyView {
        let party = try await store.party(id)
        let members = try await store.members(of: id)
        let adventures = try await store.adventures(of: id)
        var activities: [ConsoleActivity] = []
        if let newest = adventures.first { activities = try await store.consoleActivities(of: newest.id) }
        return ConsolePartyPages.PartyView(
            party: party, members: members, players: try await store.consolePlayers(members.map(\.player)), adventures: adventures,
            activities: activities, walkieTalkie: try await store.consoleWalkieTalkie(of: id))
    }

    var consoleNames: ConsolePartyPages.Names {
        let game = content.game
        return ConsolePartyPages.Names(hero: { game.hero($0)?.name ?? $0.rawValue }, route: { game.route($0)?.name ?? $0.rawValue },
                                       boss: { game.boss($0)?.name ?? $0.rawValue })
    }
}
