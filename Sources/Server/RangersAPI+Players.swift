import Game
import Hummingbird
import Services
import Store
import Vocabulary

extension RangersAPI {
    // MARK: - Players

    func createPlayer(_ request: Request) async throws -> Response {
        let body = try await body(CreatePlayerRequest.self, request)
        let (player, apiKey) = try await store.createPlayer(name: body.name, at: now())
        return try JSONCoding.response(CreatedPlayerView(player: PlayerView(player), apiKey: apiKey), status: .created)
    }

    func me(_ request: Request) async throws -> Response {
        let player = try await auth.player(request)
        let heroes = try await store.heroes(of: player.id)
        let parties = try await store.parties(of: player.id)
        return try JSONCoding.response(MeView(player: PlayerView(player), heroes: heroes,
                                              parties: parties.map { PartySummaryView(id: $0.id, name: $0.name) }))
    }

    func pickHeroes(_ request: Request) async throws -> Response {
        let player = try await auth.player(request)
        let body = try await body(PickHeroesRequest.self, request)
        let heroes = try await store.pickHeroes(body.heroes, for: player.id)
        return try JSONCoding.response(HeroesView(heroes: heroes))
    }

    // MARK: - Parties

    func createParty(_ request: Request) async throws -> Response {
        let player = try await auth.player(request)
        let body = try await body(CreatePartyRequest.self, request)
        let party = try await store.createParty(name: body.name, by: player.id, hero: body.hero, at: now())
        return try JSONCoding.response(try await partyView(party), status: .created)
    }

    func joinParty(_ request: Request) async throws -> Response {
        let player = try await auth.player(request)
        let body = try await body(JoinPartyRequest.self, request)
        let membership = try await store.joinParty(inviteCode: body.inviteCode.rawValue, player: player.id, hero: body.hero, at: now())
        return try JSONCoding.response(try await partyView(try await store.party(membership.party)))
    }

    func party(_ request: Request, id: PathParameter<PartyID>) async throws -> Response {
        let player = try await auth.player(request)
        let party = try await memberParty(try id.checked(), player: player)
        return try JSONCoding.response(try await partyView(party))
    }

    func leaveParty(_ request: Request, id: PathParameter<PartyID>) async throws -> Response {
        let player = try await auth.player(request)
        let party = try await memberParty(try id.checked(), player: player)
        let bundleID = configuration.bundleID
        try await store.leaveParty(party.id, player: player.id, at: now()) { member in
            OutboxMessage.leaveChannel(member, bundleID: bundleID, reason: "the player left the party")
        }
        return Response(status: .noContent)
    }

    /// The party, if the player is in it: 404 when there is no such party, 403
    /// when it is someone else's.
    func memberParty(_ id: PartyID, player: Player) async throws -> Party {
        let party = try await store.party(id)
        guard try await store.membership(of: player.id, in: id) != nil else {
            throw APIError.forbidden("you are not a member of party \(id)")
        }
        return party
    }

    private func partyView(_ party: Party) async throws -> PartyView {
        let members = try await store.members(of: party.id)
        let running = try await store.adventures(of: party.id).first { $0.status == .running }
        return PartyView(party, members: members, runningAdventure: running?.id)
    }
}
