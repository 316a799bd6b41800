import Catalog
import Foundation
import Game
import Vocabulary
import Wire

/// A saved session as one self-contained web page: every hero's and the boss's
/// health over time, a marker for each push coloured by priority, the alerts and
/// sounds where they fired, and the alert texts in a language picked on the page.
/// Nothing is fetched: the data, the strings, the style and the script are inline.
public enum HTMLTimeline {
    /// Enough points for a smooth line at any screen width; an 8-hour adventure at
    /// a 1-second tick would otherwise put 28,800 points in each line.
    static let mostSamples = 2000

    public static func page(_ session: SavedSession, content: ReplayContent) throws -> String {
        let data = try chartData(session, content: content)
        let json = String(decoding: try JSONEncoder.sorted.encode(data), as: UTF8.self)
            // Inside <script>, "</" could end the element early.
            .replacingOccurrences(of: "</", with: "<\\/")
        let title = escape("\(data.route) · adventure \(session.adventureID)")
        return """
            <!DOCTYPE html>
            <html lang="en">
            <head>
            <meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <title>\(title)</title>
            <script>\(HTMLTimelineAssets.errorCatcher)</script>
            <style>\(HTMLTimelineAssets.style)</style>
            </head>
            <body>
            <h1>\(title)</h1>
            <p id="summary"></p>
            <p><label>Alert language <select id="language"></select></label></p>
            <div id="legend"></div>
            <svg id="chart" xmlns="http://www.w3.org/2000/svg" role="img" aria-label="Health over time"></svg>
            <h2>Alerts and sounds</h2>
            <table id="alerts"><thead><tr><th>tick</th><th>time</th><th>to</th><th>priority</th><th>alert</th><th>sound</th></tr></thead><tbody></tbody></table>
            <div id="status" data-state="loading" data-hero-lines="0" data-errors="0"></div>
            <script type="application/json" id="data">\(json)</script>
            <script>\(HTMLTimelineAssets.chart)</script>
            <script>\(HTMLTimelineAssets.script)</script>
            </body>
            </html>

            """
    }

    struct ChartData: Encodable {
        struct Hero: Encodable {
            var id: String
            var name: String
            var avatar: String
        }

        struct BossSpan: Encodable {
            var name: String
            var avatar: String
            var fromTick: Int
        }

        struct Push: Encodable {
            var tick: Int
            var recipient: String
            var hero: String?
            var priority: Int
            var event: String
            var reason: String
            var state: String
            var sound: String?
            var title: Text?
            var body: Text?
        }

        struct Text: Encodable {
            var key: String?
            var args: [String]
            var plain: String?
        }

        var route: String
        var tickInterval: Int
        var lastTick: Int
        var heroes: [Hero]
        var bosses: [BossSpan]
        var ticks: [Int]
        /// Percent of max health, one list per hero in `heroes` order.
        var heroHealth: [[Int]]
        var bossHealth: [Int]
        var pushes: [Push]
        var languages: [String]
        /// language → key → template, for the keys the alerts use.
        var strings: [String: [String: String]]
    }

    static func chartData(_ session: SavedSession, content: ReplayContent) throws -> ChartData {
        let adventure: Adventure
        do {
            adventure = try Adventure(setup: session.setup, content: content.game)
        } catch {
            throw VerificationError.unplayable(error.description)
        }
        let step = max(1, (session.lastTick + mostSamples - 1) / mostSamples)
        let pushes = try session.pushes.decoded()
        let pushTicks = Set(pushes.compactMap(\.tick))
        var data = ChartData(
            route: content.game.route(session.setup.route)?.name ?? session.setup.route.rawValue,
            tickInterval: session.setup.tickInterval, lastTick: session.lastTick,
            heroes: adventure.heroes.map { ChartData.Hero(id: $0.id.rawValue, name: $0.name, avatar: $0.avatar) },
            bosses: [], ticks: [], heroHealth: Array(repeating: [], count: adventure.heroes.count), bossHealth: [],
            pushes: [], languages: StringCatalog.requiredLanguages, strings: [:])
        var bossIndex = -1
        func sample(_ state: AdventureState) {
            if state.bossIndex != bossIndex {
                bossIndex = state.bossIndex
                let boss = adventure.bosses[state.bossIndex]
                data.bosses.append(ChartData.BossSpan(name: boss.name, avatar: boss.avatar, fromTick: state.tick))
            }
            let sample = TimelineSample(state)
            data.ticks.append(sample.tick)
            for (index, health) in sample.heroHealth.enumerated() { data.heroHealth[index].append(health) }
            data.bossHealth.append(sample.bossHealth)
        }
        sample(adventure.start())
        try session.replay(with: content) { state, _ in
            if state.tick % step == 0 || !state.isRunning || state.tick == session.lastTick
                || pushTicks.contains(state.tick) || state.bossIndex != bossIndex {
                sample(state)
            }
        }
        let heroes = session.heroByActivity
        var keys: Set<String> = []
        data.pushes = pushes.map { push in
            func text(_ alertText: AlertText?) -> ChartData.Text? {
                switch alertText {
                case .localized(let key, let args):
                    keys.insert(key)
                    return ChartData.Text(key: key, args: args, plain: nil)
                case .plain(let text): return ChartData.Text(key: nil, args: [], plain: text)
                case nil: return nil
                }
            }
            return ChartData.Push(
                tick: push.tick ?? 0, recipient: push.targetID, hero: heroes[ActivityID(push.targetID)]?.rawValue,
                priority: push.priority.rawValue, event: push.event, reason: push.reason, state: push.state,
                sound: push.alert.map { $0.sound ?? "default" }, title: text(push.alert?.title), body: text(push.alert?.body))
        }
        for language in data.languages {
            data.strings[language] = Dictionary(uniqueKeysWithValues: keys.compactMap { key in
                content.strings.textOrSource(key, language: language).map { (key, $0) }
            })
        }
        return data
    }

    /// Text for HTML content and attribute values.
    public static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }
}

extension JSONEncoder {
    static var sorted: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }
}
