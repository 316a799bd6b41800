import APNs
import ArgumentParser
import Foundation
import Vocabulary

/// `rangers channels`: an app's broadcast channels on APNs' management host
/// (or `rangers apns-sim`'s), through the server's own APNs module.
struct ChannelsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "channels",
        abstract: "Create, list, read and delete the app's broadcast channels (iOS 18 Live Activities).",
        discussion: """
            Channels live on APNs' management host (sandbox: api-manage-broadcast.sandbox.push.apple.com:2195, \\
            production: api-manage-broadcast.push.apple.com:2196), chosen by --environment or given with \\
            --management-url. Exit status: 0 done, 1 refused by APNs or unreachable, 2 a mistake found before \\
            sending. Key material is never printed.
            """,
        subcommands: [Create.self, List.self, Read.self, Delete.self]
    )

    /// What every subcommand takes: the app and the connection.
    struct Options: ParsableArguments {
        @Option(help: "The app's bundle id (without a push type suffix).")
        var bundleID: String = SampleApp.bundleID

        @OptionGroup var connection: APNsConnectionOptions

        /// Runs `request` with a client, closing it whatever happens, and prints
        /// APNs' answer; exits 1 unless it succeeded.
        func run<Value>(_ request: (APNsClient) async throws -> APNsChannelAnswer<Value>,
                        onSuccess: (Value) -> Void) async throws {
            let client = try connection.client()
            let answer: APNsChannelAnswer<Value>
            do {
                answer = try await request(client)
            } catch let error as APNsChannelRequestError {
                await client.shutdown()
                throw UsageError(error.description)
            } catch {
                await client.shutdown()
                throw UsageError("\(error)")
            }
            await client.shutdown()
            try ChannelAnswerPrinter.finish(answer, managing: true) { onSuccess($0) }
        }
    }

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Create a channel; prints its id (what the app passes to pushType: .channel(id)).")

        @Option(help: "no-storage (a broadcast reaches the devices it reaches at once; larger budget; expiration 0 only) or most-recent (the newest broadcast is kept up to 8 h for devices that come later).")
        var storagePolicy: StoragePolicyArgument = .mostRecent

        @OptionGroup var options: Options

        func run() async throws {
            try await options.run({ try await $0.createChannel(bundleID: options.bundleID, storagePolicy: storagePolicy.policy) }) {
                print("channel: \($0)")
            }
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List every channel the app has in this environment.")

        @OptionGroup var options: Options

        func run() async throws {
            try await options.run({ try await $0.allChannels(bundleID: options.bundleID) }) { channels in
                for channel in channels { print(channel) }
                print("channels: \(channels.count)")
            }
        }
    }

    struct Read: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show a channel's configuration.")

        @Argument(help: "The channel id.")
        var channel: String

        @OptionGroup var options: Options

        func run() async throws {
            try await options.run({ try await $0.channelConfiguration(BroadcastChannelID(channel), bundleID: options.bundleID) }) {
                print("message-storage-policy: \($0.storagePolicy.rawValue) (\($0.storagePolicy))")
                print("push-type: \($0.pushType)")
            }
        }
    }

    struct Delete: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Delete a channel (irreversible; APNs may still deliver what it stored).")

        @Argument(help: "The channel id.")
        var channel: String

        @OptionGroup var options: Options

        func run() async throws {
            try await options.run({ try await $0.deleteChannel(BroadcastChannelID(channel), bundleID: options.bundleID) }) { _ in
                print("deleted: \(channel)")
            }
        }
    }

    enum StoragePolicyArgument: String, ExpressibleByArgument, CaseIterable {
        case noStorage = "no-storage", mostRecent = "most-recent"

        var policy: MessageStoragePolicy {
            switch self {
            case .noStorage: .noMessageStored
            case .mostRecent: .mostRecentMessageStored
            }
        }
    }
}

/// Prints APNs' answer to a channel request or broadcast, as `rangers push` prints a push's.
enum ChannelAnswerPrinter {
    /// Prints the status, `apns-request-id`, then what was asked for (`value`) or
    /// the reason; throws exit 1 unless it succeeded. `managing`: a request to the
    /// management host, for which a wrong path or method most likely means a wrong host.
    static func finish<Value>(_ answer: APNsChannelAnswer<Value>, managing: Bool = false, value: (Value) -> Void = { _ in }) throws {
        let response = answer.response
        print("status: \(response.map { String($0.status) } ?? "no answer")")
        if let id = response?.requestID { print("apns-request-id: \(id)") }
        switch answer.outcome {
        case .succeeded:
            if let result = answer.value { value(result) }
            return
        case .rejected(let reason) where managing && (reason == .badPath || reason == .methodNotAllowed):
            print("reason: \(reason) (is --management-url the channel management host?)")
        case .channelGone(let reason):
            print("reason: \(reason) (the channel does not exist)")
        case .channelLimitReached:
            print("reason: \(APNsReason.cannotCreateChannelConfig) (the app has as many channels as APNs allows; delete unused ones)")
        case .retryLater(let reason), .rejected(let reason):
            print("reason: \(reason)")
        }
        if answer.attempts > 1 { print("attempts: \(answer.attempts)") }
        throw ExitCode(1)
    }
}
