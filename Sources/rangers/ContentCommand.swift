import ArgumentParser
import Catalog
import Foundation
import PushPolicy

struct ContentCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "content",
        abstract: "Work with Content/, the data a game designer edits.",
        subcommands: [Check.self]
    )

    struct Check: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Check heroes, bosses, routes, rules, the string catalog and the sounds.",
            discussion: "Prints every problem with its file and key, and exits 1 if there is any."
        )

        @OptionGroup var content: ContentOptions

        func run() throws {
            let directory = content.directory
            do {
                let loaded = try LoadedContent.load(from: directory, requiring: PushPolicy.contentRequirements)
                let game = loaded.game
                print("""
                    Content OK (\(directory.path), version \(loaded.version)): \
                    \(game.heroes.count) heroes, \(game.bosses.count) bosses, \(game.routes.count) routes, \
                    \(loaded.strings.keys.count) texts in \(StringCatalog.requiredLanguages.joined(separator: ", ")), \
                    \(loaded.sounds.count) sounds
                    """)
            } catch {
                FileHandle.standardError.write(Data("\(error)\n".utf8))
                throw ExitCode(1)
            }
        }
    }
}
