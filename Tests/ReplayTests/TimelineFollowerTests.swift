import Game
import Replay
import Testing
import Vocabulary

/// Following an adventure tick by tick, as the live page does, gives the samples
/// of playing it whole: the same commands at the same ticks, the same states.
@Suite struct TimelineFollowerTests {
    @Test func followingInStepsSamplesEachTickAsPlayingItWholeDoes() throws {
        let setup = ReplayFixture.setup(seed: 11, tickInterval: 1)
        let player = setup.party[1].player
        let commands = [ScheduledCommand(tick: 5, command: .usePotion(player: player, hero: "egghead")),
                        ScheduledCommand(tick: 40, command: .usePotion(player: player, hero: "spouty"))]
        let game = try Adventure(setup: setup, content: ReplayFixture.loaded.game)
        var whole: [TimelineSample] = []
        let end = game.playToEnd(commands: commands) { state, _ in whole.append(TimelineSample(state)) }

        var untouched: [TimelineSample] = []
        game.playToEnd { state, _ in untouched.append(TimelineSample(state)) }
        #expect(untouched != whole, "the potions change the adventure, so following must apply them")

        var follower = try TimelineFollower(setup: setup, content: ReplayFixture.loaded.game)
        #expect(follower.startSample == TimelineSample(game.start()))
        var followed: [TimelineSample] = []
        // Uneven steps, each given every command so far (and one not yet due): only those due apply.
        for tick in [1, 4, 5, 6, 39, 41, 90, end.tick + 50] {
            followed += follower.advance(to: tick, commands: commands.filter { $0.tick <= tick + 1 })
            #expect(follower.tick == min(tick, end.tick))
        }
        #expect(followed == whole)
        #expect(followed.map(\.tick) == Array(1...end.tick))
        #expect(follower.matches(end))
        var other = end
        other.potions += 1
        #expect(!follower.matches(other))
        #expect(follower.advance(to: end.tick + 100, commands: commands).isEmpty, "nothing after the end")
    }
}
