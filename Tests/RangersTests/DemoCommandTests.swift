import Foundation
import Store
import StoreTestSupport
import Testing
import Vocabulary

/// `rangers demo` as a new user runs it: one command, a whole adventure, exit 0.
@Suite(.closesStores) struct DemoCommandTests {
    /// On PostgreSQL the URL comes from the environment, as the demo's replay hint says.
    @Test(arguments: StoreEngine.available) func theDemoPlaysAnAdventureOverHTTPAndShowsEveryPush(engine: StoreEngine) async throws {
        let database = try await engine.database()
        let (storeOption, environment) = engine == .sqlite
            ? (["--db", database.location], [String: String]())
            : ([String](), ["RANGERS_DATABASE_URL": database.location])
        let demo = try await RangersProcess.run(["demo", "--speed", "20", "--seed", "11"] + storeOption, environment: environment)
        #expect(demo.status == 0, "\(demo.stderr)")
        let output = demo.stdout
        #expect(output.contains("signs up with 🐼 Power Panda"))
        #expect(output.contains("registers its update token"))
        #expect(output.contains("⏱  tick 1\n"))
        #expect(output.contains("→ start to Mai's phone · priority 10"))
        #expect(output.contains("→ end to Lin's Live Activity"))
        #expect(output.contains("· alert "), "alerts are shown with their loc-key")
        #expect(output.contains("why: "))
        #expect(!output.contains("\u{1B}["), "no progress line when the output is not a terminal")

        // What the demo reported is what the database holds.
        let store = try await database.open(asNode: false)
        let adventureID = try #require(output.firstMatch(of: /🏁 Adventure (\S+):/)?.1)
        let adventure = try await store.adventure(AdventureID(String(adventureID)))
        #expect(adventure.status != .running)
        let log = try await store.pushLog(of: adventure.id)
        #expect(output.contains("Pushes delivered: \(log.count { $0.status == 200 })"))
        #expect(log.count { $0.tick == 0 } == 3, "a push-to-start for each of the three phones")
        #expect(Set(log.filter { ($0.tick ?? 0) > 0 }.map(\.target)).count == 3, "three Live Activities updated")
        let hint = engine == .sqlite ? "--db \(database.location)" : "--database \"$RANGERS_DATABASE_URL\""
        #expect(output.contains("rangers replay \(adventureID) \(hint)"))
        #expect(engine == .sqlite || !output.contains(PostgresTestServer.password), "the password shows")

        // And the replay it points to finds the adventure identical.
        let replay = try await RangersProcess.run(["replay", String(adventureID)] + (engine == .sqlite ? storeOption : ["--database", database.location]))
        #expect(replay.status == 0, "\(replay.stdout)\(replay.stderr)")
        #expect(replay.stdout.contains("identical"))
    }

    /// The demo prints a link to the live page and serves it until the adventure
    /// has ended: a page opened from it sees every phone's pushes, the ends included.
    @Test func theDemoPrintsALinkToTheLivePageWhichFollowsTheAdventureToItsEnd() async throws {
        let folder = try ScratchFiles.newDirectory()
        let output = folder.appendingPathComponent("demo.out")
        FileManager.default.createFile(atPath: output.path, contents: nil)
        let demo = Process()
        demo.executableURL = RangersProcess.executable
        demo.arguments = ["demo", "--speed", "20", "--seed", "11", "--db", folder.appendingPathComponent("demo.sqlite").path]
        demo.currentDirectoryURL = RangersProcess.repositoryRoot
        demo.standardOutput = try FileHandle(forWritingTo: output)
        demo.standardError = FileHandle.nullDevice
        try demo.run()
        defer { if demo.isRunning { demo.terminate() } }

        var links: (page: String, stream: String)?
        try await ServerAPI(base: "").waitFor("the demo to print its links", within: .seconds(60)) {
            let printed = (try? String(contentsOf: output, encoding: .utf8)) ?? ""
            links = printed.firstMatch(of: /Watch the phones' Lock Screens live \(until the adventure ends\): (\S+)\n +Its Server-Sent Events, for a script: (\S+)/)
                .map { (String($0.1), String($0.2)) }
            return links != nil || !demo.isRunning
        }
        let (page, stream) = try #require(links, "no links in: \((try? String(contentsOf: output, encoding: .utf8)) ?? "")")
        #expect(page.hasPrefix("http://127.0.0.1:") && page.contains("/live/adventures/") && page.contains("?token="))
        #expect(stream.hasPrefix("http://127.0.0.1:") && stream.contains("/events?token="))
        // The console beside the live page, on the same server, with the key the run made.
        let printed = (try? String(contentsOf: output, encoding: .utf8)) ?? ""
        let console = try #require(printed.firstMatch(of: /The game master's console: (\S+) \(this run's key: (\S+)\)/))
        let origin = try #require(page.range(of: "/live/")).lowerBound
        #expect(String(console.1) == page[..<origin] + "/console")
        let browser = ConsoleHTTP()
        let form = try await browser.send(String(console.1))
        let token = try #require(form.text.firstMatch(of: /name="csrf" value="([^"]+)"/)?.1)
        let paired = try #require(form.setCookie.firstMatch(of: /rangers_console_sign_in=([^;]+)/)?.1)
        let signedIn = try await browser.send(String(console.1) + "/sign-in", cookie: "rangers_console_sign_in=\(paired)",
                                              form: "key=\(console.2)&csrf=\(token)")
        #expect(signedIn.status == 303 && signedIn.setCookie.contains("rangers_console=cs_"), "the printed key signs in")
        // Until the server stops, which the demo does once the adventure is over.
        let reading = try await EventStreamReader.read(stream, for: 90)
        #expect(reading.status == 200)
        let cards = (reading.messages.first?.data["cards"] as? [[String: Any]])?.compactMap { $0["language"] as? String }
        #expect(cards == ["vi", "ko", "zh-Hans"], "Mai's, Jun's and Lin's phones")
        let ends = reading.pushes.filter { ($0.data["payload"] as? String)?.contains(#""event":"end""#) == true }
        #expect(Set(ends.compactMap { $0.data["card"] as? String }).count == 3, "the page saw each phone's end")
        while demo.isRunning { try await Task.sleep(for: .milliseconds(50)) }
        #expect(demo.terminationStatus == 0)
    }

    /// `--followers`: players outside the party watch, every other one on a broadcast
    /// channel (iOS 18), the rest with pushes of their own; each push says how many
    /// devices it reached.
    @Test func theDemoShowsFollowersOnChannelsAndPerToken() async throws {
        let database = try await StoreEngine.sqlite.database()
        let demo = try await RangersProcess.run(["demo", "--speed", "20", "--seed", "11", "--followers", "6",
                                                 "--db", database.location])
        #expect(demo.status == 0, "\(demo.stderr)")
        let output = demo.stdout
        #expect(output.contains("👀 6 players outside the party follow with code "))
        #expect(output.contains("3 on iOS 18 listen on 2 broadcast channel(s)"))
        #expect(output.contains("→ start to Fan 2's phone (following) · priority 10 · alert alert.following.title"))
        #expect(output.contains("→ update to the followers' channel (vi) · priority 5 · APNs 200 · reached 2 device(s)"))
        #expect(output.contains("→ end to the followers' channel (zh-Hans)"))
        #expect(output.contains("Live Activity (following)"))
        #expect(output.contains("→ update to Mai's Live Activity · priority 5 · APNs 200 · reached 1 device(s)"))
        let summary = try #require(output.firstMatch(of: /Followers: 6 — (\d+) broadcasts to 2 channel\(s\) reached (\d+) devices/))
        // Three devices listen: each broadcast reaches those of its language.
        #expect(Int(summary.2)! > Int(summary.1)!)
        #expect(!output.contains("alert.heroKnockedDown.title 🔔 HeroDown.caf · APNs 200 · reached 2"))

        let store = try await database.open(asNode: false)
        let adventureID = try #require(output.firstMatch(of: /🏁 Adventure (\S+):/)?.1)
        #expect(try await store.followers(of: AdventureID(String(adventureID))).count == 6)
    }

    @Test func badOptionsAreRefusedBeforeAnythingStarts() async throws {
        let speed = try await RangersProcess.run(["demo", "--speed", "0"])
        #expect(speed.status == 2)
        #expect(speed.stderr.contains("speed: must be 1…20"))
        let followers = try await RangersProcess.run(["demo", "--followers", "201"])
        #expect(followers.status == 2)
        #expect(followers.stderr.contains("followers: must be 0…200"))
        let policy = try await RangersProcess.run(["demo"], environment: ["RANGERS_POLICY_ROUTINE_SPACING": "soon"])
        #expect(policy.status == 2)
        #expect(policy.stderr.contains("RANGERS_POLICY_ROUTINE_SPACING: 'soon' is not a whole number"))
        let budget = try await RangersProcess.run(["demo"], environment: ["RANGERS_POLICY_HIGH_PRIORITY_PER_HOUR": "-1"])
        #expect(budget.status == 2)
        #expect(budget.stderr.contains("RANGERS_POLICY_HIGH_PRIORITY_PER_HOUR must be 0 or more"))
    }
}
