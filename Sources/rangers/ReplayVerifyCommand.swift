import ArgumentParser
import Catalog
import Foundation
import Game
import Replay

struct ReplayVerifyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify",
        abstract: "Play a saved adventure again and compare it with its log (the default of `rangers replay`)."
    )

    @Argument(help: "An adventure id, or a session file.")
    var source: String

    @OptionGroup var sourceOptions: SessionSourceOptions

    @Flag(help: "Print the timeline (ticks, events, push decisions) before the verdict.")
    var timeline = false

    @Option(help: "text, or json (one object per line).")
    var format: OutputFormat = .text

    @Option(help: "Language of the text timeline: en, vi, ko or zh-Hans.")
    var language: String = "en"

    @Option(help: "Also write the timeline as a self-contained web page with a health chart.")
    var html: String?

    @OptionGroup var push: ReplayPushOptions

    enum OutputFormat: String, ExpressibleByArgument, CaseIterable {
        case text, json
    }

    func run() async throws {
        let loaded: SessionSourceOptions.Loaded
        do {
            loaded = try await sourceOptions.load(source, withPushes: timeline || html != nil)
        } catch let changed as ContentChanged {
            report(contentChanged: changed.error)
            throw ExitCode(3)
        }
        let (session, content) = (loaded.session, loaded.content)
        if push.push {
            try await push.run(session, content: content)
            return
        }
        if let html { try writePage(session, content: content, to: html) }
        if timeline { try printTimeline(session, content: content) }

        var verdict: VerificationReport
        do {
            verdict = try Verifier.verify(session, with: content)
            verdict.pushes = loaded.pushCount
        } catch .contentChanged(let recorded, let current) {
            report(contentChanged: .contentChanged(recorded: recorded, current: current))
            throw ExitCode(3)
        } catch {
            throw UsageError("\(error)")
        }
        print(describe(verdict, session))
        if !verdict.isIdentical { throw ExitCode(1) }
    }

    private func report(contentChanged error: VerificationError) {
        if format == .json, case .contentChanged(let recorded, let current) = error {
            print(#"{"current":"\#(current)","kind":"verdict","recorded":"\#(recorded)","result":"contentChanged"}"#)
        }
        FileHandle.standardError.write(Data("rangers: \(error)\n".utf8))
    }

    private func describe(_ verdict: VerificationReport, _ session: SavedSession) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        func json(_ event: GameEvent?) -> String {
            event.flatMap { try? encoder.encode($0) }.map { String(decoding: $0, as: UTF8.self) } ?? "null"
        }
        let counts = #""events":\#(verdict.events),"kind":"verdict","#
        guard let divergence = verdict.divergence else {
            if format == .json {
                return #"{\#(counts)"pushes":\#(verdict.pushes),"result":"identical","ticks":\#(verdict.ticks)}"#
            }
            return "identical: \(verdict.ticks) ticks, \(verdict.events) events, \(verdict.pushes) pushes "
                + "(adventure \(session.adventureID), content \(session.contentVersion))"
        }
        let seconds = divergence.tick * session.setup.tickInterval
        let time = String(format: "%d:%02d:%02d", seconds / 3600, seconds / 60 % 60, seconds % 60)
        switch divergence.difference {
        case .event(let position, let saved, let replayed):
            if format == .json {
                return #"{"kind":"verdict","position":\#(position),"replayed":\#(json(replayed)),"result":"diverged","#
                    + #""saved":\#(json(saved)),"tick":\#(divergence.tick)}"#
            }
            return "diverged at tick \(divergence.tick) (\(time) into the adventure), event \(position + 1) of the tick:\n"
                + "  saved:    \(saved.map { json($0) } ?? divergence.savedText.map { "\($0) (not a readable event)" } ?? "(no event)")\n"
                + "  replayed: \(replayed.map { json($0) } ?? "(no event)")"
        case .status(let saved, let replayed):
            if format == .json {
                return #"{"kind":"verdict","replayed":"\#(replayed.rawValue)","result":"diverged","#
                    + #""saved":"\#(saved.rawValue)","tick":\#(divergence.tick)}"#
            }
            return "diverged at tick \(divergence.tick) (\(time) into the adventure): the adventure stood "
                + "'\(saved.rawValue)' in the log but '\(replayed.rawValue)' in the replay"
        }
    }

    private func printTimeline(_ session: SavedSession, content: ReplayContent) throws {
        try UsageError.requireCatalogLanguage(language)
        let adventure: Adventure
        do {
            adventure = try Adventure(setup: session.setup, content: content.game)
        } catch {
            throw UsageError("the session cannot be played: \(error)")
        }
        let pushes: [SessionPush]
        do {
            pushes = try session.pushes.decoded()
        } catch {
            throw UsageError("\(error)")
        }
        var output = TimelinePrinter(content: content, adventure: adventure, language: language, json: format == .json,
                                     topic: pushes.first?.topic.rawValue ?? "")
        let pushesByTick = Dictionary(grouping: pushes, by: { $0.tick ?? 0 })
        let heroes = session.heroByActivity
        output.begin()
        output.savedPushes(pushesByTick[0] ?? [], heroes: heroes)
        try session.replay(with: content) { state, events in
            output.tick(state, events)
            output.savedPushes(pushesByTick[state.tick] ?? [], heroes: heroes)
        }
        output.flush()
    }

    private func writePage(_ session: SavedSession, content: ReplayContent, to path: String) throws {
        do {
            try Data(try HTMLTimeline.page(session, content: content).utf8).write(to: URL(fileURLWithPath: path), options: .atomic)
        } catch {
            throw UsageError("cannot write \(path): \(error)")
        }
        FileHandle.standardError.write(Data("wrote \(path)\n".utf8))
    }
}
