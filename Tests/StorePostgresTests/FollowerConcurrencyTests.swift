import Foundation
import Game
import PushPolicy
import Store
@testable import StorePostgres
import StoreTestSupport
import Testing
import Vocabulary

/// The followers' invariants under concurrency, through two stores (two nodes) on
/// one database: one maker per channel, the app's channel limit counted over all
/// nodes, the limit of followers per token of an adventure, and a stopped node's
/// claim to make a channel taken over with its late answer refused.
@Suite(.enabled(if: PostgresTestServer.isAvailable, Comment(rawValue: PostgresTestServer.skipped)), .closesStores)
struct PostgresFollowerConcurrencyTests {
    func twoNodes(lease: Duration = .seconds(10)) async throws -> (PostgresStore, PostgresStore) {
        let database = try await StoreEngine.postgres.database()
        return (try await database.open(lease: lease) as! PostgresStore, try await database.open(lease: lease) as! PostgresStore)
    }

    private func followable(in store: any RangersStore, seed: UInt64 = 7) async throws -> StoredAdventure {
        try await Trio.make(in: store).startAdventure(seed: seed, followCode: .random())
    }

    /// Twenty first followers of one language at once, half through each node:
    /// exactly one is given the channel to make; the others are told it is being made.
    @Test func oneNodeMakesAGivenChannel() async throws {
        let (a, b) = try await twoNodes()
        let adventure = try await followable(in: a)
        let watchers = try await Watchers.make(20, in: a)
        let answers = try await withThrowingTaskGroup(of: ChannelAvailability?.self) { group in
            for (index, player) in watchers.players.enumerated() {
                let store = index.isMultiple(of: 2) ? a : b
                group.addTask { try await store.follow(.channel(adventure, player: player.id, language: "ko"), at: Date()).channel }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        let creations = answers.compactMap { if case .create(let creation)? = $0 { creation } else { nil } }
        #expect(creations.count == 1)
        #expect(answers.filter { $0 == .beingMade }.count == 19)
        #expect(try await a.followerChannels(of: adventure.id).count == 1)
        #expect(try await a.followers(of: adventure.id).count == 20)
    }

    /// First followers of twelve adventures at once through two nodes, with room
    /// for five channels: five are claimed to be made, the others wait; and the
    /// nodes' keepers, claiming at once, never go past the limit either.
    @Test func theChannelLimitIsCountedAcrossNodes() async throws {
        let (a, b) = try await twoNodes()
        var adventures: [StoredAdventure] = []
        for seed in 0..<12 { adventures.append(try await followable(in: a, seed: UInt64(seed))) }
        let watchers = try await Watchers.make(12, in: a)
        let answers = try await withThrowingTaskGroup(of: ChannelAvailability?.self) { group in
            for (index, adventure) in adventures.enumerated() {
                let store = index.isMultiple(of: 2) ? a : b
                let player = watchers.players[index].id
                group.addTask { try await store.follow(.channel(adventure, player: player, channelLimit: 5), at: Date()).channel }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        let created = answers.filter { if case .create? = $0 { true } else { false } }.count
        let waiting = answers.filter { if case .unavailable(_, true)? = $0 { true } else { false } }.count
        #expect(created == 5)
        #expect(waiting == 7)

        // Room for three more; both nodes' keepers claim at once once the waiting ones'
        // retry time has come (and before the five claims run out).
        let later = Date() + FollowerRules.channelLimitRetry + 1
        async let first = a.takeChannelCreations(limit: 10, channelLimit: 8, at: later)
        async let second = b.takeChannelCreations(limit: 10, channelLimit: 8, at: later)
        let (one, other) = try await (first, second)
        #expect(one.count + other.count == 3)
        #expect(Set(one.map(\.channel)).isDisjoint(with: other.map(\.channel)))
    }

    /// Twenty players follow per token at once, half through each node, with room
    /// for five such followers: five are let in, each woken once.
    @Test func theLimitOfFollowersPerTokenHoldsWhateverFollowsAtOnce() async throws {
        let (a, b) = try await twoNodes()
        let adventure = try await followable(in: a)
        let watchers = try await Watchers.make(20, in: a)
        let results = await withTaskGroup(of: Bool.self) { group in
            for (index, player) in watchers.players.enumerated() {
                let store = index.isMultiple(of: 2) ? a : b
                let device = watchers.devices[index]
                group.addTask {
                    (try? await store.follow(.token(adventure, player: player.id, device: device, tokenFollowers: 5),
                                             at: Date())) != nil
                }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        #expect(results.filter { $0 }.count == 5)
        #expect(try await a.followers(of: adventure.id).count == 5)
        #expect(try await a.outbox(of: adventure.id).count == 5)
    }

    /// A node that stops beating while it makes a channel: another node takes the
    /// claim over; the first node's late answer is refused (it then deletes the
    /// channel it made), and while a claim is out the sweep deletes nothing at once.
    @Test func aStoppedNodesClaimToMakeAChannelIsTakenOver() async throws {
        let (a, b) = try await twoNodes(lease: .seconds(1))
        let adventure = try await followable(in: a)
        let watcher = try await Watchers.make(1, in: a).players[0].id
        guard case .create(let claim)? = try await a.follow(.channel(adventure, player: watcher), at: Date()).channel else {
            Issue.record("no claim")
            return
        }
        #expect(try await b.knownChannels().creationsInFlight == 1)
        #expect(try await b.takeChannelCreations(limit: 10, channelLimit: 10, at: Date()).isEmpty, "a live node's claim is taken")
        await a.stopBeating()
        try await Task.sleep(for: .milliseconds(1_500))
        let taken = try await b.takeChannelCreations(limit: 10, channelLimit: 10, at: Date())
        #expect(taken.map(\.channel) == [claim.channel])
        #expect(taken.first?.attempt == 2)
        await #expect(throws: StoreError.self) { try await a.channelCreated(claim, as: "bGF0ZQ==", at: Date()) }
        try await b.channelCreated(taken[0], as: "dGFrZW4=", at: Date())
        #expect(try await a.follow(.channel(adventure, player: watcher), at: Date()).channel
                == .open(claim.channel, "dGFrZW4="))
    }
}
