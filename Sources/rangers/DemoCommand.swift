import APNs
import APNsCurl
import APNsSimulator
import ArgumentParser
import Foundation
import Game
import Logging
import NIOConcurrencyHelpers
import Server
import ServiceLifecycle
import Services

/// `rangers demo`: the whole product in one command for someone who has just cloned
/// the repository. The server runs in this process with its APNs simulator; three
/// players and a game master use it over HTTP exactly as apps would.
struct DemoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "Start a server with its APNs simulator, play one adventure over the HTTP API, and show every push.",
        discussion: """
            Three players with Power Panda, Egghead and Spouty register their push-to-start tokens; a game master \
            starts an adventure; each player's app registers its Live Activity when the push-to-start arrives. \
            Game time runs --speed times faster than the wall clock so the adventure ends within a minute. \
            The adventure stays in --db (or the PostgreSQL database of --database) for `rangers replay`.
            """
    )

    @OptionGroup var database: DatabaseOptions

    @Option(help: "Game seconds per wall-clock second (1…20).")
    var speed = 5

    @Option(help: "The route (default: the first in bosses.json).")
    var route: String?

    @Option(help: "The adventure's seed (default: a random one, printed).")
    var seed: UInt64?

    @Option(help: "Language of the event texts shown: en, vi, ko or zh-Hans.")
    var language = "en"

    @Option(help: "Players outside the party who follow the adventure (0…200): every other one on iOS 18, listening on a broadcast channel of their language; the rest on iOS 17, with pushes of their own.")
    var followers = 0

    @OptionGroup var content: ContentOptions

    func run() async throws {
        guard (1...20).contains(speed) else { throw UsageError("speed: must be 1…20, not \(speed)") }
        guard (0...200).contains(followers) else { throw UsageError("followers: must be 0…200, not \(followers)") }
        guard ["en", "vi", "ko", "zh-Hans"].contains(language) else {
            throw UsageError("language: '\(language)' must be en, vi, ko or zh-Hans")
        }
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = .warning
            return handler
        }
        let clock = FastClock(speed: Double(speed))
        // A fresh game-master key per run: the demo is its only user, so it is never shown.
        let (databasePath, databaseURL) = try database.settings(defaultPath: "rangers-demo.sqlite")
        var configuration = ServerConfiguration(
            gameMasterKey: DemoScript.randomHex(), apns: .simulator, databasePath: databasePath, databaseURL: databaseURL, host: "127.0.0.1", port: 0,
            contentDirectory: content.directory, pushPolicy: try PolicyEnvironment.configuration(),
            followers: FollowerSettings(tokenFollowersPerAdventure: max(FollowerSettings().tokenFollowersPerAdventure, followers)),
            // The server's waits are wall-clock time: scaled down with the game's, or
            // they, not --speed, would set how fast the adventure goes.
            ticker: Ticker.Settings(longestWait: .milliseconds(50) / speed, gatherInterval: .milliseconds(100) / speed),
            dispatcher: Dispatcher.Settings(idleWait: .milliseconds(50) / speed))
        // The demo's players and followers all sign up from this machine.
        configuration.limits = AbuseLimits(signUpsPerMinute: 100_000, failedAuthenticationsPerMinute: 100_000)
        let resources: ServerResources
        do {
            resources = try await ServerResources.open(configuration, now: { clock.now })
        } catch let error as InvalidConfiguration {
            throw UsageError(error)
        }
        let chosenRoute = try route.map(RouteID.init) ?? Self.firstRoute(of: resources)
        guard resources.content.game.route(chosenRoute) != nil else {
            throw UsageError("route: no route '\(chosenRoute)' in \(content.directory.path)/bosses.json")
        }

        let apns = try await APNsEndpoint.simulator(metrics: resources.metricsFactory)
        let simulator = apns.simulator!
        let listening = PortBox()
        let app = try buildApplication(configuration, resources: resources, apns: apns, onListening: { listening.set($0) })
        let group = ServiceGroup(configuration: ServiceGroupConfiguration(
            services: [app], gracefulShutdownSignals: [.sigterm, .sigint], logger: Logger(label: "rangers.demo")))

        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            let port = try await listening.wait()
            print("Server on http://127.0.0.1:\(port) · APNs simulator on \(simulator.baseURL) · database \(configuration.store)")
            var script = DemoScript(client: DemoClient(serverURL: URL(string: "http://127.0.0.1:\(port)")!),
                                    gameMasterKey: configuration.gameMasterKey, simulator: simulator,
                                    resources: resources, storeOption: DatabaseOptions.option(for: configuration.store),
                                    language: language, speed: speed, followers: followers)
            do {
                try await script.run(route: chosenRoute, seed: seed)
            } catch {
                await group.triggerGracefulShutdown()
                throw error
            }
            await group.triggerGracefulShutdown()
            try await tasks.waitForAll()
        }
        await resources.close()
        await apns.shutdown()
    }

    private static func firstRoute(of resources: ServerResources) throws -> RouteID {
        guard let first = resources.content.game.routes.first?.id else { throw UsageError("the content has no route") }
        return first
    }

}

/// Game time that runs `speed` times faster than the wall clock from the moment
/// the demo starts, so a 150-tick adventure at a one-second tick takes 30 s.
struct FastClock: Sendable {
    let origin = Date()
    let speed: Double

    var now: Date { origin.addingTimeInterval(Date().timeIntervalSince(origin) * speed) }
}

/// The port the server reports once it listens.
final class PortBox: @unchecked Sendable {
    private let lock = NIOLock()
    private var port: Int?

    func set(_ port: Int) { lock.withLock { self.port = port } }

    func wait() async throws -> Int {
        let deadline = ContinuousClock.now + .seconds(20)
        while ContinuousClock.now < deadline {
            if let port = lock.withLock({ port }) { return port }
            try await Task.sleep(for: .milliseconds(10))
        }
        throw UsageError("the server did not start listening within 20 s")
    }
}
