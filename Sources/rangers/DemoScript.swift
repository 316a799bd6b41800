import APNsSimulator
import Foundation
import Game
import Server
import Vocabulary

/// What the demo's players, their apps and the game master do, and what the demo
/// shows of it: every tick's events and every push as the server's own API reports
/// them.
struct DemoScript {
    let client: DemoClient
    let gameMasterKey: String
    let simulator: APNsSimulator
    let resources: ServerResources
    /// Where the demo's store is, for the replay command it prints.
    let storeOption: String
    let language: String
    let speed: Int
    /// Players outside the party who watch: half on iOS 18 (a broadcast channel), half on iOS 17.
    let followerCount: Int

    /// One player and their phone.
    struct Player {
        var name: String
        var hero: HeroID
        var locale: String
        var frequentPushes: Bool
        var key = ""
        var device = "device-\(UUID().uuidString.prefix(8).lowercased())"
        var pushToStartToken = DemoScript.randomHex()
        var activity: String?
    }

    private var players = [
        Player(name: "Mai", hero: HeroID("power-panda"), locale: "vi-VN", frequentPushes: true),
        Player(name: "Jun", hero: HeroID("egghead"), locale: "ko-KR", frequentPushes: false),
        Player(name: "Lin", hero: HeroID("spouty"), locale: "zh-Hans-CN", frequentPushes: true),
    ]
    /// A player outside the party and their phone: on iOS 18 it listens on the
    /// adventure's channel of its language; before, it gets its own pushes.
    struct Watcher {
        var name: String
        var locale: String
        var onChannel: Bool
        var key = ""
        var device = "phone-\(UUID().uuidString.prefix(8).lowercased())"
        var pushToStartToken = DemoScript.randomHex()
        var activity: String?
        var channel: String?
    }

    private var watchers: [Watcher] = []
    /// The followers' channels by their id in the push log, with their language.
    private var channelLanguages: [String: String] = [:]
    private var shownEvents = 0
    private var shownTick = 0
    private var shownPushes: [DemoClient.Push] = []
    private var potionUsed = false
    private let terminal = isatty(STDOUT_FILENO) == 1
    private var progressShown = false

    init(client: DemoClient, gameMasterKey: String, simulator: APNsSimulator, resources: ServerResources,
         storeOption: String, language: String, speed: Int, followers: Int = 0) {
        self.client = client
        self.gameMasterKey = gameMasterKey
        self.simulator = simulator
        self.resources = resources
        self.storeOption = storeOption
        self.language = language
        self.speed = speed
        followerCount = followers
    }

    mutating func run(route: RouteID, seed: UInt64?) async throws {
        let party = try await formParty()
        let started = try await client.startAdventure(party: party.id, route: route, tickInterval: 1, seed: seed,
                                                      followable: followerCount > 0, key: gameMasterKey)
        let game = resources.content.game
        let routeName = game.route(route)?.name ?? route.rawValue
        show("\n🗺  The game master starts \(routeName) (adventure \(started.id)), a tick every game second, "
             + "\(speed)× faster than the wall clock")
        let link = try await client.liveLink(adventure: started.id, key: gameMasterKey)
        show("👀 Watch the phones' Lock Screens live (until the adventure ends): \(link.url)")
        // The same host as the page's: the link names the host it was asked at.
        show("   Its Server-Sent Events, for a script: \(link.url.dropLast(link.path.count))\(link.eventsPath)")
        // This run's key is made for it and ends with it: without it the console's address is no use.
        show("🎛  The game master's console: \(link.url.dropLast(link.path.count))/console (this run's key: \(gameMasterKey))")
        if let code = started.followCode, followerCount > 0 {
            try await addFollowers(adventure: started.id, code: code)
        }
        let wallStart = ContinuousClock.now
        let final = try await follow(adventure: started.id)
        // Pages read the store every quarter second: let them show the end before the server stops.
        try await Task.sleep(for: .seconds(1))
        clearProgress()
        summarize(final, elapsed: ContinuousClock.now - wallStart)
    }

    /// Players sign up, pick their hero, form a party, and their phones register
    /// push-to-start tokens, all over the HTTP API.
    private mutating func formParty() async throws -> DemoClient.Party {
        for index in players.indices {
            let created = try await client.createPlayer(name: players[index].name)
            players[index].key = created.apiKey
            try await client.pickHeroes([players[index].hero], key: created.apiKey)
            try await client.registerPushToStartToken(device: players[index].device, token: players[index].pushToStartToken,
                                                      locale: players[index].locale, key: created.apiKey)
            show("👤 \(players[index].name) signs up with \(heroName(players[index].hero)); their phone "
                 + "(\(players[index].locale), frequent updates \(players[index].frequentPushes ? "on" : "off")) "
                 + "registers a push-to-start token")
        }
        let party = try await client.createParty(name: "Demo Rangers", hero: players[0].hero, key: players[0].key)
        for player in players.dropFirst() {
            try await client.joinParty(inviteCode: party.inviteCode, hero: player.hero, key: player.key)
        }
        show("🤝 \(players[0].name) forms a party; the others join with invite code \(party.inviteCode)")
        return party
    }

    /// Players outside the party follow with the code the party shared, in four
    /// languages: an app on iOS 18 gets its language's channel and starts listening
    /// (`Activity.request(…, pushType: .channel(id))`, which the simulator plays);
    /// an older one gets a push-to-start.
    private mutating func addFollowers(adventure: String, code: String) async throws {
        let locales = ["vi-VN", "ko-KR", "zh-Hans-CN", "en-US"]
        for index in 0..<followerCount {
            var watcher = Watcher(name: "Fan \(index + 1)", locale: locales[index % locales.count], onChannel: index % 2 == 0)
            watcher.key = try await client.createPlayer(name: watcher.name).apiKey
            if !watcher.onChannel {
                try await client.registerPushToStartToken(device: watcher.device, token: watcher.pushToStartToken,
                                                          locale: watcher.locale, key: watcher.key)
            }
            let following = try await client.follow(adventure: adventure, code: code, locale: watcher.locale,
                                                     device: watcher.onChannel ? nil : watcher.device, key: watcher.key)
            if let channel = following.channel?.id {
                _ = try simulator.subscribe(device: watcher.device, to: BroadcastChannelID(channel))
                watcher.channel = channel
            }
            watchers.append(watcher)
        }
        for channel in try await resources.store.followerChannels(of: AdventureID(adventure)) {
            channelLanguages[channel.id.rawValue] = channel.language
        }
        let onChannels = watchers.filter(\.onChannel)
        show("👀 \(followerCount) players outside the party follow with code \(code): \(onChannels.count) on iOS 18 listen on "
             + "\(Set(onChannels.compactMap(\.channel)).count) broadcast channel(s), one per language; "
             + "\(followerCount - onChannels.count) on iOS 17 get a push-to-start and their own pushes")
    }

    /// Until the adventure has ended and every push it decided has been answered.
    private mutating func follow(adventure id: String) async throws -> DemoClient.Adventure {
        let deadline = ContinuousClock.now + .seconds(120)
        while true {
            guard ContinuousClock.now < deadline else {
                throw UsageError("the adventure did not finish within 120 s; the server may be overloaded")
            }
            try await registerActivitiesWhosePushToStartArrived(adventure: id)
            let adventure = try await client.adventure(id, key: gameMasterKey)
            try await showNewEventsAndPushes(of: id)
            try await usePotionWhenSomeoneIsHurt(adventure)
            if adventure.status != .running, try await resources.store.pendingOutboxCount() == 0 {
                try await showNewEventsAndPushes(of: id)
                return adventure
            }
            showProgress(adventure)
            try await Task.sleep(for: .milliseconds(100))
        }
    }

    /// The phone shows the Live Activity the push-to-start carried, and its app
    /// sends the activity's own update token to the server, as ActivityKit's
    /// `pushTokenUpdates` would.
    private mutating func registerActivitiesWhosePushToStartArrived(adventure: String) async throws {
        guard players.contains(where: { $0.activity == nil })
            || watchers.contains(where: { !$0.onChannel && $0.activity == nil }) else { return }
        let arrived = Set(simulator.accepted().map(\.deviceToken))
        for index in watchers.indices where !watchers[index].onChannel && watchers[index].activity == nil
            && arrived.contains(watchers[index].pushToStartToken) {
            let activity = "activity-\(UUID().uuidString.prefix(8).lowercased())"
            try await client.registerActivity(adventure: adventure, activity: activity, token: Self.randomHex(), hero: nil,
                                              frequentPushes: false, locale: watchers[index].locale, key: watchers[index].key)
            watchers[index].activity = activity
            show("📱 \(watchers[index].name)'s phone (iOS 17, \(watchers[index].locale)) shows the adventure; its app registers its update token")
        }
        for index in players.indices where players[index].activity == nil && arrived.contains(players[index].pushToStartToken) {
            let activity = "activity-\(UUID().uuidString.prefix(8).lowercased())"
            try await client.registerActivity(adventure: adventure, activity: activity, token: Self.randomHex(),
                                              hero: players[index].hero, frequentPushes: players[index].frequentPushes,
                                              locale: players[index].locale, key: players[index].key)
            players[index].activity = activity
            show("📱 \(players[index].name)'s phone shows the Live Activity; the app registers its update token")
        }
    }

    /// New events and pushes in the order of their ticks: a push usually follows its
    /// tick's events by a few milliseconds, and one the dispatcher sent late says so.
    private mutating func showNewEventsAndPushes(of adventure: String) async throws {
        let events = try await client.events(adventure, key: gameMasterKey)
        let pushes = try await client.pushes(adventure, key: gameMasterKey)
        enum Line {
            case event(GameEvent)
            case push(DemoClient.Push)
        }
        var lines: [(tick: Int, line: Line)] = events.dropFirst(shownEvents).map { ($0.tick, .event($0.event)) }
        lines += pushes.dropFirst(shownPushes.count).map { ($0.tick ?? shownTick, .push($0)) }
        // Stable: events stay before the pushes of their tick.
        let ordered = lines.enumerated().sorted { ($0.element.tick, $0.offset) < ($1.element.tick, $1.offset) }.map(\.element)
        for (tick, line) in ordered {
            if tick > shownTick {
                shownTick = tick
                show("\n⏱  tick \(tick)")
            }
            switch line {
            case .event(let event):
                show("   " + resources.content.strings.format(event.text(names: resources.content.game), language: language))
            case .push(let push):
                var text = "   → \(push.event?.rawValue ?? push.targetKind.rawValue) to \(recipient(of: push)) · priority \(push.priority.rawValue)"
                if let alert = push.alert { text += " · alert \(alert) 🔔 \(push.sound ?? "default sound")" }
                text += " · \(push.status.map { "APNs \($0)" } ?? "no answer")\(push.reason.map { " \($0)" } ?? "")"
                if push.status == 200 { text += " · reached \(devicesReached(by: push)) device(s)" }
                if tick < shownTick { text += " (decided at tick \(tick))" }
                show(text + "\n     why: \(push.why)")
            }
        }
        shownEvents = events.count
        shownPushes = pushes
    }

    /// A player drinks a potion for their hero the first time one is badly hurt,
    /// so the demo shows a command arriving over HTTP and applied at the next tick.
    private mutating func usePotionWhenSomeoneIsHurt(_ adventure: DemoClient.Adventure) async throws {
        guard !potionUsed, adventure.status == .running, adventure.state.potions > 0,
              let hurt = adventure.state.heroes.first(where: { !$0.knockedDown && $0.health * 10 < $0.maxHealth * 4 }),
              let player = players.first(where: { $0.hero.rawValue == hurt.hero.rawValue })
        else { return }
        potionUsed = true
        try await client.usePotion(adventure: adventure.id, hero: player.hero, key: player.key)
        show("🧪 \(player.name) uses a potion on \(heroName(player.hero)) (\(hurt.health)/\(hurt.maxHealth))")
    }

    private func recipient(of push: DemoClient.Push) -> String {
        if push.targetKind == .followerChannel {
            return "the followers' channel (\(channelLanguages[push.targetID] ?? "?"))"
        }
        let owner = players.first {
            push.targetKind == .pushToStart ? $0.device == push.targetID : $0.activity == push.targetID
        }
        if let owner { return "\(owner.name)'s \(push.targetKind == .pushToStart ? "phone" : "Live Activity")" }
        let watcher = watchers.first {
            push.targetKind == .pushToStart ? $0.device == push.targetID : $0.activity == push.targetID
        }
        return watcher.map { "\($0.name)'s \(push.targetKind == .pushToStart ? "phone" : "Live Activity") (following)" }
            ?? push.targetID
    }

    /// One device for a push to a token; for a broadcast, the devices listening on
    /// its channel that the simulator delivered it to (APNs itself does not say).
    private func devicesReached(by push: DemoClient.Push) -> Int {
        guard push.targetKind == .followerChannel else { return 1 }
        return simulator.acceptedBroadcasts().first { $0.requestID == push.apnsID }?.devicesReached ?? 0
    }

    private mutating func summarize(_ adventure: DemoClient.Adventure, elapsed: Duration) {
        let sent = shownPushes.filter { $0.status == 200 }
        let high = sent.count { $0.priority.rawValue == 10 }
        let alerts = Dictionary(grouping: sent.compactMap(\.alert), by: { $0 }).mapValues(\.count)
            .sorted { $0.key < $1.key }.map { "\($0.key) ×\($0.value)" }.joined(separator: ", ")
        let demoted = sent.count { $0.why.contains("demoted") }
        print("""

            🏁 Adventure \(adventure.id): \(adventure.status.rawValue) at tick \(adventure.lastTick) \
            (\(adventure.lastTick) game seconds, \(elapsed.components.seconds) s here)
               Pushes delivered: \(sent.count) — \(high) at priority 10, \(sent.count - high) at priority 5 \
            (\(shownPushes.count - sent.count) not delivered)
               Alerts: \(alerts.isEmpty ? "none" : alerts)
               Demoted to priority 5 by the hourly budget: \(demoted)
               The APNs simulator accepted \(simulator.acceptedCount) pushes.\(followerSummary(sent))
               Replay it:  rangers replay \(adventure.id) \(storeOption)
            """)
    }

    private func followerSummary(_ sent: [DemoClient.Push]) -> String {
        guard followerCount > 0 else { return "" }
        let broadcasts = sent.filter { $0.targetKind == .followerChannel }
        let reached = broadcasts.map(devicesReached(by:)).reduce(0, +)
        let ownActivities = Set(watchers.compactMap(\.activity))
        let perToken = sent.count { ownActivities.contains($0.targetID) }
        return "\n   Followers: \(followerCount) — \(broadcasts.count) broadcasts to \(channelLanguages.count) channel(s) "
            + "reached \(reached) devices; \(perToken) pushes to the \(ownActivities.count) followers' own Live Activities"
    }

    private func heroName(_ id: HeroID) -> String {
        resources.content.game.hero(id).map { "\($0.avatar) \($0.name)" } ?? id.rawValue
    }

    private mutating func show(_ line: String) {
        clearProgress()
        print(line)
    }

    /// One line that rewrites itself, only when a person watches.
    private mutating func showProgress(_ adventure: DemoClient.Adventure) {
        guard terminal else { return }
        let boss = adventure.state.boss
        let heroes = adventure.state.heroes.map { $0.knockedDown ? "down" : "\($0.health)" }.joined(separator: " ")
        print("\r⏳ tick \(adventure.lastTick) · boss \(boss.health)/\(boss.maxHealth) · heroes \(heroes) · "
              + "pushes \(shownPushes.count)", terminator: "")
        fflush(nil)
        progressShown = true
    }

    private mutating func clearProgress() {
        guard progressShown else { return }
        print("\r\u{1B}[K", terminator: "")
        progressShown = false
    }

    /// 32 random bytes in hex: a device token as APNs hands them out, or a key.
    static func randomHex() -> String {
        (0..<32).map { _ in String(format: "%02x", UInt8.random(in: .min ... .max)) }.joined()
    }
}
