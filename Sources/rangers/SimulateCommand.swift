import ArgumentParser
import Catalog
import Foundation
import Game
import PushPolicy
import Replay
import Vocabulary

struct SimulateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "simulate",
        abstract: "Run one adventure without a server and print its timeline.",
        discussion: """
            The same options always print the same output. Heroes are owned by \
            player-1, player-2 … in the order given; a commands file is a JSON list like \
            [{"tick": 12, "type": "usePotion", "player": "player-1", "hero": "egghead"}, \
            {"tick": 90, "type": "endAdventure"}].
            """
    )

    @Option(help: "The seed of the adventure's random numbers.")
    var seed: UInt64 = 1

    @Option(help: "Comma-separated hero ids, 1 to 6 of them.")
    var heroes: String = "power-panda,egghead,spouty"

    @Option(help: "Route id (default: the first route in bosses.json).")
    var route: String?

    @Option(help: "Seconds between ticks.")
    var tickInterval: Int = 10

    @Option(help: "Time limit: seconds, or with a unit (45m, 8h). At most 8h.")
    var timeLimit: String = "8h"

    @Option(help: "A JSON file of commands to apply.")
    var commands: String?

    @Flag(help: "Print one JSON object per line instead of text.")
    var json = false

    @Option(help: "Language of the text timeline and of the pushes' fallback text: en, vi, ko or zh-Hans.")
    var language: String = "en"

    @Flag(help: "Also print the pushes the policy decides, as if each hero's owner had a Live Activity.")
    var pushes = false

    @Option(help: "With --pushes: whether the apps reported frequent updates enabled (on|off).")
    var frequentUpdates: Toggle = .on

    @Flag(help: "With --pushes: each owner also registered a push-to-start token.")
    var pushToStart = false

    @Option(help: "With --pushes: the adventure's start time, ISO 8601 (e.g. 2026-01-01T00:00:00Z).")
    var start: String = "2026-01-01T00:00:00Z"

    @Option(help: "With --pushes: the app's bundle id, for the apns-topic.")
    var bundleID: String = SampleApp.bundleID

    enum Toggle: String, ExpressibleByArgument, CaseIterable {
        case on, off
    }

    @OptionGroup var content: ContentOptions

    func run() throws {
        let loaded: LoadedContent
        do {
            loaded = try LoadedContent.load(from: content.directory, requiring: PushPolicy.contentRequirements)
        } catch {
            throw UsageError("\(error)\nRun `rangers content check` for details.")
        }
        try UsageError.requireCatalogLanguage(language)
        let heroIDs = heroes.split(separator: ",", omittingEmptySubsequences: false)
            .map { HeroID(String($0).trimmingCharacters(in: .whitespaces)) }
            .filter { !$0.rawValue.isEmpty }
        let party = heroIDs.enumerated().map { PartyMember(player: PlayerID("player-\($0.offset + 1)"), hero: $0.element) }
        let setup = AdventureSetup(
            route: route.map(RouteID.init) ?? loaded.game.routes[0].id,
            party: party,
            tickInterval: tickInterval,
            timeLimit: try DurationText.seconds(parsing: timeLimit),
            seed: seed
        )
        let adventure: Adventure
        do {
            adventure = try Adventure(setup: setup, content: loaded.game)
        } catch {
            throw UsageError(error.description)
        }
        let scheduled = try commands.map { try CommandsFile.read($0, party: party) } ?? []

        var output = TimelinePrinter(content: ReplayContent(loaded), adventure: adventure, language: language, json: json,
                                     topic: PushType.liveactivity.topic(bundleID: bundleID).rawValue)
        output.begin()
        guard pushes else {
            adventure.playToEnd(commands: scheduled) { state, events in output.tick(state, events) }
            output.flush()
            return
        }

        guard let startedAt = ISO8601DateFormatter().date(from: start) else {
            throw UsageError("cannot read start time '\(start)' (use ISO 8601, e.g. 2026-01-01T00:00:00Z)")
        }
        let pipeline = try TickPipeline(adventureID: AdventureID("simulated-\(seed)"), setup: setup,
                                        startedAt: Int(startedAt.timeIntervalSince1970), content: loaded.game,
                                        strings: loaded.strings, configuration: try PolicyEnvironment.configuration())
        let recipients = party.map {
            LiveActivityRecipient(activityID: ActivityID("activity-\($0.player)"), player: $0.player, hero: $0.hero,
                                  frequentUpdates: frequentUpdates == .on, language: language)
        }
        do {
            if pushToStart {
                let starters = party.map { PushToStartRecipient(player: $0.player, hero: $0.hero, language: language) }
                output.pushes(try pipeline.start(pushToStart: starters).decisions, tick: 0)
            }
            try pipeline.play(commands: scheduled, recipients: recipients) { outcome in
                output.tick(outcome.state, outcome.events)
                output.pushes(outcome.decisions, tick: outcome.state.tick)
            }
        } catch {
            output.flush()
            throw UsageError("a push could not be built: \(error)")
        }
        output.flush()
    }
}

/// Named apart from Swift's `Duration`, which it would otherwise hide in this module.
enum DurationText {
    /// "90" (seconds), "45m", "8h" or "1h30m".
    static func seconds(parsing text: String) throws -> Int {
        var total = 0
        var number = ""
        for character in text {
            if character.isASCII, character.isNumber {
                number.append(character)
                continue
            }
            guard let value = Int(number), let unit = ["h": 3600, "m": 60, "s": 1][String(character)] else {
                throw UsageError("cannot read duration '\(text)' (use seconds, or e.g. 45m, 8h, 1h30m)")
            }
            total += value * unit
            number = ""
        }
        if !number.isEmpty {
            guard let value = Int(number) else { throw UsageError("cannot read duration '\(text)'") }
            total += value
        }
        return total
    }
}

enum CommandsFile {
    static func read(_ path: String, party: [PartyMember]) throws -> [ScheduledCommand] {
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw UsageError("cannot read commands file '\(path)'")
        }
        let commands: [ScheduledCommand]
        do {
            commands = try JSONDecoder().decode([ScheduledCommand].self, from: data)
        } catch {
            throw UsageError("commands file '\(path)' is malformed: \(decodingProblem(error, file: path).description)")
        }
        for (index, scheduled) in commands.enumerated() {
            let at = "commands file '\(path)', command \(index)"
            guard scheduled.tick >= 1 else { throw UsageError("\(at): tick must be 1 or more, not \(scheduled.tick)") }
            if case .usePotion(let player, let hero) = scheduled.command {
                guard party.contains(where: { $0.player == player }) else {
                    throw UsageError("\(at): player '\(player)' is not in the party (\(party.map(\.player.rawValue).joined(separator: ", ")))")
                }
                guard party.contains(where: { $0.hero == hero }) else {
                    throw UsageError("\(at): hero '\(hero)' is not in the party")
                }
            }
        }
        return commands
    }
}
