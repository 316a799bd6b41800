import Foundation
import Testing

/// `rangers channels` and `rangers push --channel` against `rangers apns-sim`, all as
/// real processes, as docs/apns.md shows.
@Suite struct ChannelsCommandTests {
    static let update = #"{"currentHealthLevel":0.5,"eventDescription":"Boss hit!"}"#

    func channelID(in output: String) throws -> String {
        let line = try #require(output.split(separator: "\n").first { $0.hasPrefix("channel: ") }, "no channel in:\n\(output)")
        return String(line.dropFirst("channel: ".count))
    }

    @Test func channelsAreManagedAndBroadcastToFromTheCommandLine() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("apns-sim-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let simulator = try APNsSimProcess.start(keyDirectory: directory, arguments: ["--channel-limit", "2"])
        var stopped = false
        defer { if !stopped { _ = simulator.stop() } }
        #expect(simulator.managementURL.hasPrefix("https://127.0.0.1:") && simulator.managementURL != simulator.url)
        let connection = simulator.connection

        let created = try await RangersProcess.run(["channels", "create", "--storage-policy", "most-recent"] + connection)
        #expect(created.status == 0, "\(created.stdout)\(created.stderr)")
        #expect(created.stdout.contains("status: 201"))
        #expect(created.stdout.contains("apns-request-id: "))
        let stored = try channelID(in: created.stdout)
        let unstored = try channelID(in: try await RangersProcess.run(["channels", "create", "--storage-policy", "no-storage"] + connection).stdout)

        let full = try await RangersProcess.run(["channels", "create"] + connection)
        #expect(full.status == 1)
        #expect(full.stdout.contains("status: 400"))
        #expect(full.stdout.contains("reason: CannotCreateChannelConfig"))

        let listed = try await RangersProcess.run(["channels", "list"] + connection)
        #expect(listed.status == 0)
        #expect(listed.stdout.contains("\(stored)\n\(unstored)\nchannels: 2"), "\(listed.stdout)")
        let read = try await RangersProcess.run(["channels", "read", unstored] + connection)
        #expect(read.stdout.contains("message-storage-policy: 0 (no message stored)"), "\(read.stdout)")
        #expect(read.stdout.contains("push-type: LiveActivity"))

        // A device subscribes by push-to-start, then gets a broadcast.
        let phone = String(repeating: "cd", count: 32)
        let start = try await RangersProcess.run(["push", "--token", phone, "--event", "start", "--content-state", Self.update,
                                                  "--attributes", #"{"heroID":"octo"}"#, "--alert-title-key", "alert.adventureStarted.title",
                                                  "--input-push-channel", stored] + connection)
        #expect(start.status == 0, "\(start.stdout)\(start.stderr)")
        let broadcast = try await RangersProcess.run(["push", "--channel", stored, "--event", "update", "--priority", "5",
                                                      "--content-state", Self.update] + connection)
        #expect(broadcast.status == 0, "\(broadcast.stdout)\(broadcast.stderr)")
        #expect(broadcast.stdout.contains("status: 200"))
        #expect(broadcast.stdout.contains("apns-request-id: "))

        let refused = try await RangersProcess.run(["push", "--channel", unstored, "--expiration", "2000000000",
                                                    "--content-state", Self.update] + connection)
        #expect(refused.status == 1)
        #expect(refused.stdout.contains("reason: BadExpirationDate"), "\(refused.stdout)")

        let deleted = try await RangersProcess.run(["channels", "delete", unstored] + connection)
        #expect(deleted.status == 0)
        #expect(deleted.stdout.contains("status: 204"))
        for arguments in [["channels", "delete", unstored], ["push", "--channel", unstored, "--content-state", Self.update]] {
            let gone = try await RangersProcess.run(arguments + connection)
            #expect(gone.status == 1, "\(arguments)")
            #expect(gone.stdout.contains("reason: ChannelNotRegistered (the channel does not exist)"), "\(gone.stdout)")
        }

        // Management sent to the push host: refused there, and the answer says where to look.
        var pushHostOnly = connection
        pushHostOnly.removeSubrange(pushHostOnly.firstIndex(of: "--management-url")!...pushHostOnly.firstIndex(of: simulator.managementURL)!)
        let wrongHost = try await RangersProcess.run(["channels", "list"] + pushHostOnly)
        #expect(wrongHost.status == 1)
        #expect(wrongHost.stdout.contains("(is --management-url the channel management host?)"), "\(wrongHost.stdout)")

        // Refused by APNs: a key id the simulator does not know; the key is never shown.
        var wrongKey = connection
        wrongKey[wrongKey.firstIndex(of: simulator.keyID)!] = "UNKNOWNKEY"
        let unknownKey = try await RangersProcess.run(["channels", "list"] + wrongKey)
        #expect(unknownKey.status == 1)
        #expect(unknownKey.stdout.contains("status: 403") && unknownKey.stdout.contains("reason: InvalidProviderToken"))
        let pem = try String(contentsOfFile: simulator.keyFile, encoding: .utf8)
        let keyLine = try #require(pem.split(separator: "\n").dropFirst().first.map(String.init))
        for output in [created, listed, broadcast, unknownKey] {
            #expect(!(output.stdout + output.stderr).contains(keyLine))
        }

        let summary = simulator.stop()
        stopped = true
        #expect(summary.contains("broadcasts accepted: 1 (delivered to 1 subscribed device)"), "\(summary)")
        #expect(summary.contains("channels: 1;"), "\(summary)")
    }

    @Test func mistakesStopBeforeAnythingIsSent() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("apns-sim-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let simulator = try APNsSimProcess.start(keyDirectory: directory)
        let connection = simulator.connection
        let update = ["--content-state", Self.update]
        let mistakes: [([String], String)] = [
            (["push", "--channel", "not base64!"] + update, "is not a broadcast channel id"),
            (["push", "--channel", "YQ==", "--event", "start", "--attributes", "{}", "--alert-title-key", "k"] + update,
             "a broadcast cannot start a Live Activity"),
            (["push", "--channel", "YQ==", "--priority", "1"] + update, "priority 1 is not allowed for a broadcast"),
            (["push", "--channel", "YQ==", "--push-type", "alert", "--payload", "{}"], "--channel broadcasts Live Activity pushes"),
            (["push", "--token", String(repeating: "ab", count: 32), "--channel", "YQ=="] + update, "either --token"),
            (["push"] + update, "either --token"),
            (["push", "--channel", "YQ==", "--input-push-channel", "YQ=="] + update, "--input-push-channel goes with --event start"),
            (["channels", "create", "--bundle-id", "com.example.app.push-type.liveactivity"], "is not a bundle id"),
            (["channels", "read", "%%%"], "is not a broadcast channel id"),
            (["channels", "create", "--storage-policy", "forever"], "storage-policy"),
            (["channels", "read"], "channel"),
        ]
        for (arguments, message) in mistakes {
            let result = try await RangersProcess.run(arguments + connection)
            #expect(result.status == 2, "\(arguments): \(result.stdout)\(result.stderr)")
            #expect(result.stderr.contains(message), "\(arguments): \(result.stderr)")
        }
        let plainHTTP = try await RangersProcess.run(["channels", "list", "--management-url", "http://127.0.0.1:2195", "--key-file",
                                                      simulator.keyFile, "--key-id", simulator.keyID, "--team-id", simulator.teamID])
        #expect(plainHTTP.status == 2)
        #expect(plainHTTP.stderr.contains("--management-url must be an https URL"))
        let summary = simulator.stop()
        #expect(summary.contains("Pushes accepted: 0, broadcasts accepted: 0 (delivered to 0 subscribed devices), rejected: 0"),
                "\(summary)")
    }
}
