import Foundation
import Game

/// The content files as text, exactly as read: the game data an adventure's play
/// depends on and the string catalog its alerts use. A saved session carries one so
/// it replays on a machine whose Content/ is different or missing. Sounds are left
/// out: they change nothing that is played or sent.
public struct ContentSnapshot: Hashable, Codable, Sendable {
    public var heroes: String
    public var bosses: String
    public var rules: String
    public var strings: String

    public init(heroes: String, bosses: String, rules: String, strings: String) {
        self.heroes = heroes
        self.bosses = bosses
        self.rules = rules
        self.strings = strings
    }

    /// Reads the files `content` was loaded from once more. If they changed since,
    /// the snapshot would not be the content that played, so that is an error.
    public init(of content: LoadedContent) throws(ContentError) {
        func read(_ name: String) throws(ContentError) -> String {
            guard let data = try? Data(contentsOf: content.directory.appendingPathComponent(name)),
                  let text = String(data: data, encoding: .utf8) else {
                throw ContentError(problems: [ContentProblem(file: name, message: "cannot be read as UTF-8 text")])
            }
            return text
        }
        self.init(heroes: try read(LoadedContent.heroesFile), bosses: try read(LoadedContent.bossesFile),
                  rules: try read(LoadedContent.rulesFile), strings: try read(LoadedContent.stringsFile))
        guard version == content.version else {
            throw ContentError(problems: [ContentProblem(file: content.directory.path, message:
                "changed since it was loaded (version \(content.version), now \(version))")])
        }
    }

    /// Computed exactly as `LoadedContent.version` is, so the two can be compared.
    public var version: String {
        var hash = ContentHash()
        hash.add(name: LoadedContent.heroesFile, data: Data(heroes.utf8))
        hash.add(name: LoadedContent.bossesFile, data: Data(bosses.utf8))
        hash.add(name: LoadedContent.rulesFile, data: Data(rules.utf8))
        return hash.hex
    }

    /// The game data and string catalog, decoded and checked as `LoadedContent.load`
    /// checks them (sounds aside): a snapshot that would not load from disk does not
    /// load from here either.
    public func load(requiring requirements: ContentRequirements = .init())
        throws(ContentError) -> (game: GameContent, strings: StringCatalog)
    {
        typealias Loaded = LoadedContent
        var problems: [ContentProblem] = []
        let heroes = Loaded.decode(Loaded.HeroesFile.self, Data(heroes.utf8), file: Loaded.heroesFile,
                                   schema: Schema.heroes, problems: &problems)
        let bosses = Loaded.decode(Loaded.BossesFile.self, Data(bosses.utf8), file: Loaded.bossesFile,
                                   schema: Schema.bosses, problems: &problems)
        let rules = Loaded.decode(GameRules.self, Data(rules.utf8), file: Loaded.rulesFile,
                                  schema: Schema.rules, problems: &problems)
        var catalog: StringCatalog?
        do {
            let (decoded, found) = try StringCatalog.decode(Data(strings.utf8), file: Loaded.stringsFile)
            catalog = decoded
            problems += found
        } catch {
            problems.append(decodingProblem(error, file: Loaded.stringsFile))
        }
        guard let heroes, let bosses, let rules, let catalog else { throw ContentError(problems: problems) }
        let game = GameContent(heroes: heroes.heroes, bosses: bosses.bosses, routes: bosses.routes, rules: rules)
        problems += Loaded.checkProblems(game, catalog, requirements: requirements)
        guard problems.isEmpty else { throw ContentError(problems: problems) }
        return (game, catalog)
    }
}
