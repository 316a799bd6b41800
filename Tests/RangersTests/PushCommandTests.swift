import Foundation
import Testing

/// `rangers push` against `rangers apns-sim`, both as real processes, as docs/apns.md shows.
@Suite struct PushCommandTests {
    @Test func pushIsDeliveredToTheSimulatorAndMistakesStopBeforeSending() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("apns-sim-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let simulator = try APNsSimProcess.start(keyDirectory: directory)
        defer { _ = simulator.stop() }
        #expect(simulator.url.hasPrefix("https://127.0.0.1:"))
        let token = String(repeating: "ab", count: 32)

        let delivered = try await RangersProcess.run(["push", "--token", token, "--event", "update", "--priority", "5",
                                                "--content-state", #"{"currentHealthLevel":0.5,"eventDescription":"Hit!"}"#,
                                                "--stale-date", "2000000000", "--relevance-score", "50"]
                                               + simulator.connection)
        #expect(delivered.status == 0, "\(delivered.stdout)\(delivered.stderr)")
        #expect(delivered.stdout.contains("status: 200"))
        #expect(delivered.stdout.contains("apns-id: "))

        let alert = try await RangersProcess.run(["push", "--token", token, "--event", "end", "--dismissal-date", "2000000100",
                                            "--alert-title-key", "alert.victory.title", "--alert-body-key", "alert.victory.body",
                                            "--alert-args", "Kraken", "--sound", "Victory.caf"] + simulator.connection)
        #expect(alert.status == 0, "\(alert.stdout)\(alert.stderr)")

        let talk = try await RangersProcess.run(["push", "--token", String(repeating: "cd", count: 50), "--push-type", "pushtotalk",
                                           "--payload", #"{"aps":{},"activeSpeaker":"Power Panda"}"#] + simulator.connection)
        #expect(talk.status == 0, "\(talk.stdout)\(talk.stderr)")

        // Refused by APNs: a key id the simulator does not know.
        var wrongKey = simulator.connection
        wrongKey[wrongKey.firstIndex(of: simulator.keyID)!] = "UNKNOWNKEY"
        let refused = try await RangersProcess.run(["push", "--token", token, "--content-state", "{}"] + wrongKey)
        #expect(refused.status == 1)
        #expect(refused.stdout.contains("status: 403"))
        #expect(refused.stdout.contains("reason: InvalidProviderToken"))

        // Mistakes found before anything is sent: exit 2, nothing reaches the simulator.
        let huge = String(repeating: "x", count: 5_000)
        let mistakes: [([String], String)] = [
            (["push", "--token", "xyz", "--content-state", "{}"] + simulator.connection, "hex digits"),
            (["push", "--token", token, "--content-state", #"{"eventDescription":"\#(huge)"}"#] + simulator.connection, "at most 4096"),
            (["push", "--token", token, "--content-state", "{}", "--key-file", "/nonexistent.p8",
              "--key-id", "K", "--team-id", "T", "--apns-url", simulator.url], "cannot read the key file"),
            (["push", "--token", token, "--content-state", "[1,2"] + simulator.connection, "--content-state is not a JSON object"),
        ]
        for (arguments, message) in mistakes {
            let result = try await RangersProcess.run(arguments)
            #expect(result.status == 2, "\(arguments.prefix(4))")
            #expect(result.stderr.contains(message), "\(result.stderr)")
        }
        let missingKey = try await RangersProcess.run(["push", "--token", token, "--content-state", "{}"],
                                                environment: ["APNS_KEY_FILE": "", "APNS_KEY_ID": "", "APNS_TEAM_ID": ""])
        #expect(missingKey.status == 2)
    }
}
