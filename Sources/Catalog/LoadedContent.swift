import Foundation
import Game

/// Content/ read from disk and checked: the game's data, the string catalog and
/// the alert sounds. `load` succeeds only if `rangers content check` would pass.
public struct LoadedContent: Sendable {
    public static let heroesFile = "heroes.json"
    public static let bossesFile = "bosses.json"
    public static let rulesFile = "rules.json"
    public static let stringsFile = "Localizable.xcstrings"
    public static let soundsFolder = "Sounds"

    public let directory: URL
    public let game: GameContent
    public let strings: StringCatalog
    /// File name (e.g. `HeroDown.caf`) → what it holds.
    public let sounds: [String: SoundInfo]
    /// Changes whenever anything that affects how an adventure plays changes
    /// (heroes, bosses, routes, rules); texts and sounds do not count.
    public let version: String

    public static func load(from directory: URL, requiring requirements: ContentRequirements = .init())
        throws(ContentError) -> LoadedContent
    {
        var problems: [ContentProblem] = []
        let loaded = read(directory, requirements: requirements, problems: &problems)
        guard problems.isEmpty, let loaded else { throw ContentError(problems: problems) }
        return loaded
    }

    /// Every problem with the content in `directory`; empty when it is fine.
    public static func check(_ directory: URL, requiring requirements: ContentRequirements = .init()) -> [ContentProblem] {
        var problems: [ContentProblem] = []
        _ = read(directory, requirements: requirements, problems: &problems)
        return problems
    }

    struct HeroesFile: Decodable { var heroes: [HeroDefinition] }
    struct BossesFile: Decodable { var bosses: [BossDefinition]; var routes: [Route] }

    private static func read(_ directory: URL, requirements: ContentRequirements,
                             problems: inout [ContentProblem]) -> LoadedContent? {
        var versionHash = ContentHash()
        func file(_ name: String) -> Data? {
            do {
                let data = try Data(contentsOf: directory.appendingPathComponent(name))
                if name.hasSuffix(".json") { versionHash.add(name: name, data: data) }
                return data
            } catch {
                problems.append(ContentProblem(file: name, message: "cannot be read (\(directory.path)/\(name))"))
                return nil
            }
        }
        let heroes = file(heroesFile).flatMap {
            decode(HeroesFile.self, $0, file: heroesFile, schema: Schema.heroes, problems: &problems)
        }
        let bosses = file(bossesFile).flatMap {
            decode(BossesFile.self, $0, file: bossesFile, schema: Schema.bosses, problems: &problems)
        }
        let rules = file(rulesFile).flatMap {
            decode(GameRules.self, $0, file: rulesFile, schema: Schema.rules, problems: &problems)
        }
        var strings: StringCatalog?
        if let data = file(stringsFile) {
            do {
                let (catalog, found) = try StringCatalog.decode(data, file: stringsFile)
                strings = catalog
                problems += found
            } catch {
                problems.append(decodingProblem(error, file: stringsFile))
            }
        }
        let sounds = readSounds(directory.appendingPathComponent(soundsFolder), problems: &problems)

        guard let heroes, let bosses, let rules, let strings else { return nil }
        let game = GameContent(heroes: heroes.heroes, bosses: bosses.bosses, routes: bosses.routes, rules: rules)
        problems += checkProblems(game, strings, requirements: requirements)
        for sound in requirements.sounds where sounds[sound] == nil {
            problems.append(ContentProblem(file: "\(soundsFolder)/\(sound)", message: "is missing; the server names it in alerts"))
        }
        return LoadedContent(directory: directory, game: game, strings: strings, sounds: sounds,
                             version: versionHash.hex)
    }

    /// What is wrong with decoded game data and strings, the sounds aside.
    static func checkProblems(_ game: GameContent, _ strings: StringCatalog,
                              requirements: ContentRequirements) -> [ContentProblem] {
        var problems = GameContentCheck.problems(in: game)
        problems += StringCatalogCheck.problems(in: strings, file: stringsFile)
        for text in requirements.texts {
            StringCatalogCheck.requireKey(text.key, argumentCount: text.arguments, in: strings) {
                problems.append(ContentProblem(file: stringsFile, location: $0, message: $1))
            }
        }
        return problems
    }

    static func decode<T: Decodable>(_ type: T.Type, _ data: Data, file: String, schema: Schema,
                                             problems: inout [ContentProblem]) -> T? {
        do {
            let value = try JSONDecoder().decode(type, from: data)
            let json = try JSONSerialization.jsonObject(with: data)
            problems += schema.unknownKeys(in: json).map {
                ContentProblem(file: file, location: $0, message: "unknown key (misspelt?)")
            }
            return value
        } catch {
            problems.append(decodingProblem(error, file: file))
            return nil
        }
    }

    private static func readSounds(_ folder: URL, problems: inout [ContentProblem]) -> [String: SoundInfo] {
        let file = soundsFolder
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder.path) else {
            problems.append(ContentProblem(file: file, message: "folder cannot be read (\(folder.path))"))
            return [:]
        }
        var sounds: [String: SoundInfo] = [:]
        for name in names.sorted() {
            let ext = (name as NSString).pathExtension.lowercased()
            guard ["caf", "aiff", "aif", "wav", "mp3", "m4a"].contains(ext) else { continue }
            let location = "\(file)/\(name)"
            do {
                let data = try Data(contentsOf: folder.appendingPathComponent(name))
                let info = try SoundInfo.read(data, fileExtension: ext)
                if !SoundInfo.playableEncodings.contains(info.encoding) {
                    problems.append(ContentProblem(file: location, message:
                        "encoding '\(info.encoding)' cannot be an alert sound (use Linear PCM, IMA4, µ-law or a-law)"))
                } else if info.frames <= 0 || info.channels <= 0 || info.sampleRate <= 0 {
                    problems.append(ContentProblem(file: location, message: "holds no audio"))
                } else if info.duration >= SoundInfo.longestAlertSound {
                    problems.append(ContentProblem(file: location, message: String(format:
                        "lasts %.1f s; iOS plays the default sound instead of one of 30 s or more", info.duration)))
                }
                sounds[name] = info
            } catch let error as SoundInfo.ReadError {
                problems.append(ContentProblem(file: location, message: "unreadable: \(error)"))
            } catch {
                problems.append(ContentProblem(file: location, message: "cannot be read"))
            }
        }
        if sounds.isEmpty {
            problems.append(ContentProblem(file: file, message: "has no alert sounds (.caf or .aiff)"))
        }
        return sounds
    }
}

/// What the rest of the server will ask of the content beyond the game's own
/// texts: the push policy's alert keys (with their argument counts) and sounds.
public struct ContentRequirements: Sendable {
    public var texts: [(key: String, arguments: Int)]
    public var sounds: [String]

    public init(texts: [(key: String, arguments: Int)] = [], sounds: [String] = []) {
        self.texts = texts
        self.sounds = sounds
    }
}

/// FNV-1a (64 bit) over each game data file's name and bytes: a stable, cheap
/// fingerprint for "did the content an adventure ran with change?".
struct ContentHash {
    private var state: UInt64 = 0xCBF2_9CE4_8422_2325

    mutating func add(name: String, data: Data) {
        for byte in Array(name.utf8) + [0] + Array(data) + [0] {
            state = (state ^ UInt64(byte)) &* 0x0000_0100_0000_01B3
        }
    }

    var hex: String {
        let digits = String(state, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }
}

public func decodingProblem(_ error: any Error, file: String) -> ContentProblem {
    func path(_ keys: [any CodingKey]) -> String {
        keys.map { key in key.intValue.map { "[\($0)]" } ?? ".\(key.stringValue)" }
            .joined()
            .trimmingCharacters(in: CharacterSet(charactersIn: "."))
    }
    switch error {
    case DecodingError.keyNotFound(let key, let context):
        return ContentProblem(file: file, location: path(context.codingPath + [key]), message: "is missing")
    case DecodingError.typeMismatch(let type, let context):
        return ContentProblem(file: file, location: path(context.codingPath), message: "should be \(describe(type))")
    case DecodingError.valueNotFound(let type, let context):
        return ContentProblem(file: file, location: path(context.codingPath), message: "should be \(describe(type)), not null")
    case DecodingError.dataCorrupted(let context):
        let underlying = (context.underlyingError as NSError?)?.userInfo[NSDebugDescriptionErrorKey] as? String
        let reason = underlying ?? context.debugDescription
        return ContentProblem(file: file, location: path(context.codingPath),
                              message: context.codingPath.isEmpty ? "is not valid JSON: \(reason)" : reason)
    default:
        return ContentProblem(file: file, message: "cannot be decoded: \(error)")
    }
}

private func describe(_ type: Any.Type) -> String {
    switch type {
    case is Int.Type: "a whole number"
    case is Double.Type: "a number"
    case is String.Type: "a string"
    case is Bool.Type: "true or false"
    default: "\(type)".contains("Array") ? "a list" : "an object"
    }
}
