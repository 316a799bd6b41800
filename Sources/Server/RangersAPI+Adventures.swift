import Foundation
import Game
import Hummingbird
import PushPolicy
import Store
import Vocabulary

extension RangersAPI {
    // MARK: - Game master

    /// Starts an adventure for the party as it is now: its members in the order they
    /// joined are the roster. The adventure, its first state and a push-to-start
    /// for every member's device that registered a token are stored in one
    /// transaction, so the dispatcher sends the starts as soon as it commits.
    func startAdventure(_ request: Request) async throws -> Response {
        try auth.gameMaster(request)
        let stored = try await startAdventure(try await body(StartAdventureRequest.self, request))
        return try JSONCoding.response(AdventureView(stored, showSeed: true), status: .created)
    }

    /// The start itself, for the API and the console alike.
    func startAdventure(_ body: StartAdventureRequest) async throws -> StoredAdventure {
        let roster = try await store.members(of: body.partyID).map(\.member)
        let setup = AdventureSetup(route: body.route, party: roster, tickInterval: body.tickInterval,
                                   timeLimit: body.timeLimit,
                                   seed: body.seed ?? UInt64.random(in: .min ... .max))
        let id = AdventureID.random()
        let startedAt = Int(now().timeIntervalSince1970)
        let pipeline: TickPipeline
        do {
            pipeline = try TickPipeline(adventureID: id, setup: setup, startedAt: startedAt, content: content.game,
                                        strings: content.strings, configuration: configuration.pushPolicy)
        } catch let error as AdventureSetupError {
            // The request's own fields were checked as it was read: what is left is
            // the party as it is now (nobody in it, a hero the content lost).
            throw APIError(.conflict, "invalidAdventureSetup", error.description)
        }
        let devices = try await store.pushToStartDevices(of: roster)
        // One decision per recipient, in order: zip pairs each with its device.
        let (state, decisions) = try pipeline.start(pushToStart: devices.map(\.recipient))
        let outbox = zip(devices, decisions).map { device, decision in
            OutboxMessage(decision, target: .pushToStart(device.device), bundleID: configuration.bundleID)
        }
        return try await store.startAdventure(id: id, party: body.partyID, setup: setup, state: state,
                                              startedAt: startedAt, contentVersion: content.version,
                                              followCode: body.followable == true ? .random() : nil,
                                              outbox: outbox, at: now())
    }

    /// Queues the end; the ticker applies it at the next tick, so the end is in the
    /// event log like any command and a replay reproduces it.
    func endAdventure(_ request: Request, id: PathParameter<AdventureID>) async throws -> Response {
        try auth.gameMaster(request)
        let adventure = try id.checked()
        let queued = try await store.endAdventureRequested(adventure, at: now())
        return try JSONCoding.response(QueuedCommandView(queued, adventure: adventure), status: .accepted)
    }

    func runningAdventures(_ request: Request) async throws -> Response {
        try auth.gameMaster(request)
        let running = try await store.runningAdventures()
        return try JSONCoding.response(AdventureListView(adventures: running.map { AdventureView($0, showSeed: true) }))
    }

    // MARK: - Play

    /// Queues a potion for the next tick. The ticker applies it; whether a potion
    /// is left is the game's to decide then, and shows in the event log.
    func usePotion(_ request: Request, adventure id: PathParameter<AdventureID>) async throws -> Response {
        let player = try await auth.player(request)
        let body = try await body(UsePotionRequest.self, request)
        let adventure = try await store.adventure(try id.checked())
        guard adventure.setup.party.contains(where: { $0.player == player.id }) else {
            throw APIError.forbidden("you have no hero in adventure \(adventure.id)")
        }
        guard adventure.setup.party.contains(where: { $0.hero == body.hero }) else {
            throw APIError(.conflict, "heroNotInAdventure", "hero '\(body.hero)' is not in adventure \(adventure.id)")
        }
        let queued = try await store.enqueueCommand(.usePotion(player: player.id, hero: body.hero), for: adventure.id,
                                                    receivedAt: now())
        return try JSONCoding.response(QueuedCommandView(queued, adventure: adventure.id), status: .accepted)
    }

    // MARK: - Read

    func adventure(_ request: Request, id: PathParameter<AdventureID>) async throws -> Response {
        let (adventure, caller) = try await readableAdventure(request, id: id)
        let isGameMaster = if case .gameMaster = caller { true } else { false }
        return try JSONCoding.response(AdventureView(adventure, showSeed: isGameMaster))
    }

    func events(_ request: Request, adventure id: PathParameter<AdventureID>) async throws -> Response {
        let (adventure, _) = try await readableAdventure(request, id: id)
        let events = try await store.events(of: adventure.id)
        let tickInterval = adventure.setup.tickInterval
        return try JSONCoding.response(EventsView(adventureID: adventure.id, events: events.map {
            EventsView.Entry(tick: $0.tick, time: adventure.startedAt + $0.tick * tickInterval, position: $0.position,
                             event: $0.event)
        }))
    }

    func pushes(_ request: Request, adventure id: PathParameter<AdventureID>) async throws -> Response {
        let (adventure, _) = try await readableAdventure(request, id: id)
        let log = try await store.pushLog(of: adventure.id)
        return try JSONCoding.response(PushesView(adventureID: adventure.id, pushes: log.map(PushesView.Entry.init)))
    }

    /// The adventure, if the caller may read it: the game master, a player with a
    /// hero in it, or a current member of its party.
    func readableAdventure(_ request: Request, id: PathParameter<AdventureID>) async throws -> (StoredAdventure, Caller) {
        let caller = try await auth.playerOrGameMaster(request)
        let adventure = try await store.adventure(try id.checked())
        if case .player(let player) = caller {
            try await requireReader(player.id, of: adventure)
        }
        return (adventure, caller)
    }

    /// A player may read an adventure with a hero in it, or as a current member of its party.
    func requireReader(_ player: PlayerID, of adventure: StoredAdventure) async throws {
        let inRoster = adventure.setup.party.contains { $0.player == player }
        let inParty = try await store.membership(of: player, in: adventure.party) != nil
        guard inRoster || inParty else {
            throw APIError.forbidden("adventure \(adventure.id) belongs to a party you are not in")
        }
    }
}
