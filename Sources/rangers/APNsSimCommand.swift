import APNs
import APNsSimulator
import ArgumentParser
import Foundation
import NIOConcurrencyHelpers
import Vocabulary

/// `rangers apns-sim`: a local APNs for `rangers push` and the server to talk to.
struct APNsSimCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "apns-sim",
        abstract: "Run a local APNs (HTTP/2 over TLS) that checks pushes as Apple does.",
        discussion: """
            The first run creates a provider key (AuthKey_<KEY ID>.p8) with a key id and team id in the \
            key directory; later runs reuse it. The TLS certificate is made anew on every start and \
            written there too, for clients to use as their CA file. Stops on Ctrl-C or SIGTERM.
            """
    )

    @Option(help: "The port to listen on (0: any free port; the one chosen is printed).")
    var port: Int = 2197

    @Option(help: "The port broadcast channel management listens on, apart as Apple's is (0: any free port).")
    var managementPort: Int = 2195

    @Option(help: "Broadcast channels one app may keep (Apple's limit: 10,000 per app and environment).")
    var channelLimit: Int = 10_000

    @Option(help: "The address to listen on.")
    var host: String = "127.0.0.1"

    @Option(name: .customLong("bundle-id"), help: "An app whose topics are allowed (repeat for more; default: any).")
    var bundleIDs: [String] = []

    @Option(name: .customLong("without-broadcast"),
            help: "An app without the broadcast capability: its channel requests are answered FeatureNotEnabled, as Apple does (repeat for more).")
    var appsWithoutBroadcast: [String] = []

    @Option(name: .customLong("key-dir"), help: "Where the provider key and the certificate are kept.")
    var keyDirectory: String = ".apns-sim"

    @Option(name: .customLong("client-reset-limit"),
            help: "Stream resets (RST_STREAM) one connection may send in 30 s before it gets GOAWAY ENHANCE_YOUR_CALM, as from a server hardened against Rapid Reset (0: count them, never answer).")
    var clientResetLimit: Int = ClientResetLimit.hardened.maximumCount

    func validate() throws {
        guard (0...65535).contains(port) else { throw ValidationError("--port must be 0…65535, not \(port)") }
        guard (0...65535).contains(managementPort) else {
            throw ValidationError("--management-port must be 0…65535, not \(managementPort)")
        }
        guard port == 0 || port != managementPort else { throw ValidationError("--port and --management-port must differ") }
        guard channelLimit >= 1 else { throw ValidationError("--channel-limit must be at least 1, not \(channelLimit)") }
        guard clientResetLimit >= 0 else { throw ValidationError("--client-reset-limit must be 0 or more, not \(clientResetLimit)") }
        guard !host.isEmpty else { throw ValidationError("--host must not be empty") }
    }

    func run() async throws {
        let directory = URL(fileURLWithPath: keyDirectory, isDirectory: true).standardizedFileURL
        let provider = try SimulatorProviderKey.loadOrCreate(in: directory)
        let simulator = try await APNsSimulator.start(.init(
            host: host, port: port, managementPort: managementPort, bundleIDs: bundleIDs.isEmpty ? nil : Set(bundleIDs),
            certificateDirectory: directory.appendingPathComponent("tls", isDirectory: true),
            clientResetLimit: clientResetLimit == 0 ? nil : ClientResetLimit(maximumCount: clientResetLimit, window: .seconds(30)),
            channelLimitPerApp: channelLimit))
        try simulator.registerProviderKey(provider.key)
        for bundleID in appsWithoutBroadcast { simulator.setBroadcastCapability(false, bundleID: bundleID) }
        say(instructions(simulator: simulator, provider: provider))

        await Self.terminationSignal()
        let resetsByConnection = simulator.clientResetsByConnection
        let reached = simulator.acceptedBroadcasts().reduce(0) { $0 + $1.devicesReached }
        say("Shutting down. Pushes accepted: \(simulator.acceptedCount), broadcasts accepted: \(simulator.acceptedBroadcastCount) "
            + "(delivered to \(reached) subscribed device\(reached == 1 ? "" : "s")), "
            + "rejected: \(simulator.rejectedCount); channels: \(simulator.channels().count); "
            + "connections: \(simulator.connectionsAccepted); client stream resets: \(simulator.clientResets)"
            + (resetsByConnection.isEmpty ? "." : " (" + resetsByConnection.sorted { $0.key < $1.key }
                .map { "connection \($0.key): \($0.value)" }.joined(separator: ", ") + ")."))
        try await simulator.shutdown()
    }

    private func instructions(simulator: APNsSimulator, provider: SimulatorProviderKey) -> String {
        let bundleID = bundleIDs.first ?? SampleApp.bundleID
        let connection = "--ca-file \(simulator.certificateFile.path) \\\n    "
            + "--key-file \(provider.privateKeyFile.path) --key-id \(provider.key.keyID) --team-id \(provider.key.teamID)"
        return """
            APNs simulator listening on \(simulator.baseURL) (sandbox: answers apns-unique-id)
              channel management on: \(simulator.managementBaseURL)
              CA file (its TLS certificate): \(simulator.certificateFile.path)
              provider key (.p8, signs JWTs): \(provider.privateKeyFile.path)
              verification key (public):     \(provider.publicKeyFile.path)
              key id: \(provider.key.keyID)   team id: \(provider.key.teamID)
              allowed bundle ids: \(bundleIDs.isEmpty ? "any" : bundleIDs.sorted().joined(separator: ", "))
              client stream resets: \(clientResetLimit == 0 ? "counted, never answered" : "GOAWAY after \(clientResetLimit) in 30 s on one connection")

            Send a push to it:
              rangers push --apns-url \(simulator.baseURL) --ca-file \(simulator.certificateFile.path) \\
                --key-file \(provider.privateKeyFile.path) --key-id \(provider.key.keyID) --team-id \(provider.key.teamID) \\
                --bundle-id \(bundleID) --token \(String(repeating: "ab", count: 32)) \\
                --push-type liveactivity --event update --priority 5 \\
                --content-state '{"currentHealthLevel":0.5,"eventDescription":"Power Panda is hit!"}'

            Broadcast channels (iOS 18): make one, subscribe a device as its app would, broadcast to it:
              rangers channels create --management-url \(simulator.managementBaseURL) --storage-policy most-recent \\
                --bundle-id \(bundleID) \(connection)
              curl --cacert \(simulator.certificateFile.path) -X POST \(simulator.baseURL)/simulator/subscriptions \\
                -d '{"device":"phone-1","channel":"<channel id>"}'
              rangers push --channel <channel id> --apns-url \(simulator.baseURL) --bundle-id \(bundleID) \\
                --event update --priority 5 --content-state '{"currentHealthLevel":0.5,"eventDescription":"Boss hit!"}' \\
                \(connection)
              curl --cacert \(simulator.certificateFile.path) \(simulator.baseURL)/simulator/devices/phone-1/deliveries

            Ctrl-C stops it.
            """
    }

    /// Straight to the file descriptor: print() is block-buffered into a pipe, and a
    /// script waiting for these lines would never see them while the simulator runs.
    private func say(_ text: String) {
        FileHandle.standardOutput.write(Data((text + "\n").utf8))
    }

    /// Returns on the first SIGINT or SIGTERM; both are taken from their default
    /// action (exit at once) so that the simulator can shut down in order.
    static func terminationSignal() async {
        let queue = DispatchQueue(label: "rangers.apns-sim.signals")
        let sources = [SIGINT, SIGTERM].map { number in
            signal(number, SIG_IGN)
            return DispatchSource.makeSignalSource(signal: number, queue: queue)
        }
        let resumed = LockedFlag()
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            for source in sources {
                source.setEventHandler {
                    if resumed.setOnce() { continuation.resume() }
                }
                source.resume()
            }
        }
        // Also keeps the sources alive until now: Dispatch stops delivering to a released one.
        for source in sources { source.cancel() }
    }
}

private final class LockedFlag: @unchecked Sendable {
    private let lock = NIOLock()
    private var isSet = false

    /// True only for the first caller.
    func setOnce() -> Bool {
        lock.withLock {
            defer { isSet = true }
            return !isSet
        }
    }
}

/// The simulator's provider key on disk: `AuthKey_<KEY ID>.p8` (private, 0600) as
/// Apple hands it out, its public half, and `provider.json` with the key and team ids.
struct SimulatorProviderKey {
    let key: APNsSigningKey
    let privateKeyFile: URL
    let publicKeyFile: URL

    private struct Identity: Codable {
        var keyID: String
        var teamID: String
    }

    static func loadOrCreate(in directory: URL) throws -> SimulatorProviderKey {
        let identityFile = directory.appendingPathComponent("provider.json")
        if FileManager.default.fileExists(atPath: identityFile.path) {
            guard let data = try? Data(contentsOf: identityFile),
                  let identity = try? JSONDecoder().decode(Identity.self, from: data)
            else { throw UsageError("\(identityFile.path) is not a readable provider.json; delete the folder to start afresh") }
            let files = paths(in: directory, keyID: identity.keyID)
            do {
                let key = try APNsSigningKey(contentsOf: files.privateKey, keyID: identity.keyID, teamID: identity.teamID)
                return SimulatorProviderKey(key: key, privateKeyFile: files.privateKey, publicKeyFile: files.publicKey)
            } catch {
                throw UsageError("\(files.privateKey.path): \(error)")
            }
        }
        return try create(in: directory, identityFile: identityFile)
    }

    private static func create(in directory: URL, identityFile: URL) throws -> SimulatorProviderKey {
        // Apple's key and team ids are ten upper-case letters and digits.
        let identity = Identity(keyID: randomIdentifier(), teamID: randomIdentifier())
        let (key, pem) = APNsSigningKey.generate(keyID: identity.keyID, teamID: identity.teamID)
        let files = paths(in: directory, keyID: identity.keyID)
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            guard FileManager.default.createFile(atPath: files.privateKey.path, contents: Data(pem.utf8),
                                                 attributes: [.posixPermissions: 0o600])
            else { throw CocoaError(.fileWriteNoPermission) }
            try Data(key.publicKeyPEM.utf8).write(to: files.publicKey, options: .atomic)
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            try encoder.encode(identity).write(to: identityFile, options: .atomic)
        } catch {
            throw UsageError("cannot write the provider key into \(directory.path): \(error.localizedDescription)")
        }
        return SimulatorProviderKey(key: key, privateKeyFile: files.privateKey, publicKeyFile: files.publicKey)
    }

    private static func paths(in directory: URL, keyID: String) -> (privateKey: URL, publicKey: URL) {
        (directory.appendingPathComponent("AuthKey_\(keyID).p8"), directory.appendingPathComponent("AuthKey_\(keyID).pub.pem"))
    }

    private static func randomIdentifier() -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
        return String((0..<10).map { _ in alphabet.randomElement()! })
    }
}
