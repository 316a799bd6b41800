import APNs
import APNsCurl
import APNsSimulator
import Foundation
import Testing
import Wire

/// The two examples in docs/libraries.md are these files, word for word, and they work: the app's
/// reads a push exactly as the server encodes it, the server's sends one that the
/// APNs simulator (checking requests as Apple does) delivers.
@Suite struct ReadmeExampleTests {
    static let testsDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    static let readme = testsDirectory.deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("docs/libraries.md")

    /// The first ```swift block after the heading `heading`.
    static func readmeBlock(after heading: String) throws -> String {
        let text = try String(contentsOf: readme, encoding: .utf8)
        let section = try #require(text.range(of: "\n## \(heading)\n") ?? text.range(of: "\n### \(heading)\n"),
                                   "docs/libraries.md has no heading \(heading)")
        let rest = text[section.upperBound...]
        let open = try #require(rest.range(of: "```swift\n"), "no swift block under \(heading)")
        let close = try #require(rest[open.upperBound...].range(of: "\n```\n"))
        return String(rest[open.upperBound..<close.lowerBound])
    }

    @Test(arguments: [
        ("Using the types in your app", "AppExample.swift"),
        ("Sending pushes from your own server", "PushServerExample.swift"),
    ])
    func readmeShowsTheExampleThatCompiles(heading: String, file: String) throws {
        let source = try String(contentsOf: Self.testsDirectory.appendingPathComponent(file), encoding: .utf8)
        let block = try Self.readmeBlock(after: heading)
        #expect(block == source.trimmingCharacters(in: .newlines),
                "docs/libraries.md's block under \"\(heading)\" and Tests/ReadmeExampleTests/\(file) differ: copy the file into docs/libraries.md")
    }

    @Test func theAppReadsAPushAsTheServerEncodedIt() throws {
        let state = AdventureAttributes.ContentState(
            currentHealthLevel: 0.5, eventDescription: "Spouty is knocked down!",
            heroes: [HeroStatus(id: "spouty", healthLevel: 0, isKnockedDown: true)],
            boss: BossStatus(id: "thorn-wolf", healthLevel: 0.7, isEnraged: true, position: 0),
            latestEvent: EventText(key: "event.heroKnockedDown", args: ["Spouty"]), potions: 2)
        let pushed = try PayloadEncoder().encode(LiveActivityPayload(timestamp: UnixTimestamp(seconds: 1_700_000_000),
                                                                     event: .update(), contentState: state))
        #expect(try contentState(ofPush: pushed) == state)
    }

    @Test func theServerExampleSendsAnUpdateThatIsDelivered() async throws {
        let simulator = try await APNsSimulator.start()
        let generated = APNsSigningKey.generate(keyID: "KEY1234567", teamID: "TEAM123456")
        try simulator.registerProviderKey(publicKeyPEM: generated.key.publicKeyPEM, keyID: "KEY1234567", teamID: "TEAM123456")
        let keyFile = FileManager.default.temporaryDirectory.appendingPathComponent("readme-example-\(UUID().uuidString).p8")
        try Data(generated.pem.utf8).write(to: keyFile)
        defer { try? FileManager.default.removeItem(at: keyFile) }

        var transport = CurlTransportConfiguration()
        transport.caFile = simulator.certificateFile
        let client = try makePushClient(keyFile: keyFile, keyID: "KEY1234567", teamID: "TEAM123456",
                                        environment: .custom(simulator.baseURL), transport: transport)
        struct State: Codable, Sendable, Equatable { var score: Int }
        let token = String(repeating: "ab", count: 32)
        let outcome = try await sendUpdate(State(score: 7), toActivityToken: token,
                                           bundleID: "com.example.apple-samplecode.Emoji-Rangers", with: client)
        await client.shutdown()
        try await simulator.shutdown()

        guard case .delivered = outcome else { Issue.record("not delivered: \(outcome)"); return }
        let pushed = try #require(simulator.accepted().first { $0.deviceToken == token })
        #expect(pushed.pushType == .liveactivity && pushed.priority == 10)
        let aps = try #require(JSONSerialization.jsonObject(with: pushed.payload) as? [String: Any])["aps"] as? [String: Any]
        #expect(aps?["event"] as? String == "update")
        #expect((aps?["content-state"] as? [String: Any])?["score"] as? Int == 7)
    }
}
