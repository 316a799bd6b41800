import ArgumentParser
import Catalog
import Foundation
import Server

@main
struct Rangers: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rangers",
        abstract: "Emoji Rangers: party adventures on the iPhone Lock Screen.",
        subcommands: [ContentCommand.self, SimulateCommand.self, PushCommand.self, ChannelsCommand.self, APNsSimCommand.self, ServeCommand.self,
                      DemoCommand.self, ReplayCommand.self]
    )

    /// Usage mistakes (a bad flag, an unknown hero, a malformed file) exit with 2
    /// and one clear line; a failed check exits with 1.
    static func main() async {
        do {
            var command = try parseAsRoot()
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch let error as UsageError {
            FileHandle.standardError.write(Data("rangers: \(error.message)\n".utf8))
            Foundation.exit(2)
        } catch {
            if exitCode(for: error) == .validationFailure {
                FileHandle.standardError.write(Data((fullMessage(for: error) + "\n").utf8))
                Foundation.exit(2)
            }
            exit(withError: error)
        }
    }
}

struct UsageError: Error {
    var message: String
    init(_ message: String) { self.message = message }

    /// One line per unusable setting, each saying where the setting comes from.
    init(_ error: InvalidConfiguration) {
        message = error.problems.map { problem in
            let sources = problem.setting == "pushPolicy" ? "$RANGERS_POLICY_*" : ServeSettings.named(problem.setting)?.sources
            return sources.map { "\(problem.setting) (\($0)): \(problem.message)" } ?? problem.description
        }.joined(separator: "\n")
    }

    /// A `--language` must be one the string catalog is written in.
    static func requireCatalogLanguage(_ language: String) throws(UsageError) {
        guard StringCatalog.requiredLanguages.contains(language) else {
            throw UsageError("unknown language '\(language)' (choose \(StringCatalog.requiredLanguages.joined(separator: ", ")))")
        }
    }
}

/// Where Content/ is: `--content`, else `$RANGERS_CONTENT`, else ./Content.
struct ContentOptions: ParsableArguments {
    @Option(name: .customLong(ServeSettings.contentDirectory.flag!), help: ArgumentHelp(ServeSettings.contentDirectory))
    var path: String?

    var directory: URL {
        URL(fileURLWithPath: ServeSettings.contentDirectory.value(flag: path) ?? "Content", isDirectory: true)
    }
}

extension ArgumentHelp {
    /// A flag's help as its declaration says it.
    init(_ setting: ServeSetting) {
        self.init("\(setting.meaning) (or $\(setting.variable); default: \(setting.shownDefault))")
    }
}
