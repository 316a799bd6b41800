import APNs
import ArgumentParser
import Foundation
import Game
import Replay

#if canImport(Glibc)
import Glibc
import Vocabulary
#endif

/// `rangers replay … --push`: one hero's view of the adventure, sent again to one
/// device (or `rangers apns-sim`), faster than it happened.
struct ReplayPushOptions: ParsableArguments {
    @Flag(help: "Send one hero's pushes again to --token, compressed in time by --speed.")
    var push = false

    @Option(help: "With --push: the Live Activity's push token (hex).")
    var token: String?

    @Option(help: "With --push: how many times faster than the adventure ran.")
    var speed: Double = 20

    @Option(help: "With --push: whose view (default: the party's first hero).")
    var hero: String?

    @Option(help: "With --push: also start the activity first through this push-to-start token (hex).")
    var pushToStartToken: String?

    @Option(help: "With --push: the app's bundle id, for the apns-topic.")
    var bundleID: String = SampleApp.bundleID

    @OptionGroup var connection: APNsConnectionOptions

    func validate() throws {
        if !push, token != nil || pushToStartToken != nil || hero != nil {
            throw ValidationError("--token, --push-to-start-token and --hero go with --push")
        }
    }

    func run(_ session: SavedSession, content: ReplayContent) async throws {
        guard let token else { throw UsageError("--push needs --token (the Live Activity's push token, hex)") }
        guard speed > 0, speed <= 100_000 else { throw UsageError("--speed must be above 0 and at most 100000, not \(speed)") }
        let replay: PushReplay
        let policy = try PolicyEnvironment.configuration()
        do {
            replay = try PushReplay(session, content: content, hero: hero.map(HeroID.init), speed: speed, startingAt: Date(),
                                    withStart: pushToStartToken != nil, policy: policy)
        } catch {
            throw UsageError("\(error)")
        }
        for (name, value) in [("--token", token), ("--push-to-start-token", pushToStartToken)] {
            guard let value else { continue }
            do {
                try APNsRequest.liveActivity(deviceToken: value, bundleID: bundleID, priority: 5, payload: Data("{}".utf8))
                    .validate()
            } catch {
                throw UsageError("\(name): \(error)")
            }
        }
        let total = replay.count(withPushToStart: pushToStartToken != nil)
        let seconds = (replay.pushes.last?.sendAfter ?? 0)
        FileHandle.standardError.write(Data(String(format: "pushing %d pushes of %@'s view in %.0f s (%g× faster)\n",
                                                   total, replay.hero.rawValue, seconds, speed).utf8))
        let client = try connection.client()
        let bar = ProgressBar(total: total, isTerminal: isatty(STDERR_FILENO) == 1)
        let sent: Int
        do {
            sent = try await replay.send(through: client, token: token, pushToStartToken: pushToStartToken,
                                         bundleID: bundleID) { sent, push, delivery in
                bar.update(sent: sent, line: "tick \(push.tick) \(push.payload.event.name) priority \(push.priority) "
                    + "timestamp \(push.payload.timestamp): \(delivery.response.map { String($0.status) } ?? "no answer")")
            }
        } catch {
            bar.finish()
            await client.shutdown()
            throw UsageError("\(error)")
        }
        bar.finish()
        await client.shutdown()
        print("sent \(sent) pushes of \(replay.hero)'s view of adventure \(session.adventureID)")
    }
}

/// On a terminal, one line redrawn in place; otherwise one plain line per push,
/// so a log or a pipe gets readable text without control characters.
struct ProgressBar {
    var total: Int
    var isTerminal: Bool

    func update(sent: Int, line: String) {
        guard isTerminal else {
            write("[\(sent)/\(total)] \(line)\n")
            return
        }
        let width = 30
        let filled = total > 0 ? width * sent / total : width
        let bar = String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled)
        write("\r\u{1B}[K[\(bar)] \(sent)/\(total) \(line)")
    }

    func finish() {
        if isTerminal { write("\n") }
    }

    private func write(_ text: String) { FileHandle.standardError.write(Data(text.utf8)) }
}
