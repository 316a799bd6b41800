import ArgumentParser
import Foundation
import Server

/// Which store a command reads and writes: a PostgreSQL database with
/// `--database` (or $RANGERS_DATABASE_URL), else the SQLite file of `--db` (or
/// $RANGERS_DB). The URL holds a password: the environment keeps it out of the
/// process list, and nothing prints it.
struct DatabaseOptions: ParsableArguments {
    @Option(name: .customLong(ServeSettings.databasePath.flag!), help: ArgumentHelp(ServeSettings.databasePath))
    var db: String?

    @Option(name: .customLong(ServeSettings.databaseURL.flag!),
            help: ArgumentHelp("\(ServeSettings.databaseURL.meaning) (or $\(ServeSettings.databaseURL.variable))",
                               valueName: "postgres://user:password@host:port/name"))
    var database: String?

    /// The SQLite file (`defaultPath` when none is named) and the PostgreSQL URL,
    /// if any: a flag beats the environment, and `--db` with `--database` is a mistake.
    func settings(defaultPath: String) throws -> (path: String, url: String?) {
        let environment = ProcessInfo.processInfo.environment
        if db != nil, database != nil {
            throw UsageError("--db names a SQLite file and --database a PostgreSQL database: pass one of them")
        }
        if let db { return (db, nil) }
        let url = ServeSettings.databaseURL.value(flag: database, environment: environment)
        return (ServeSettings.databasePath.value(flag: nil, environment: environment) ?? defaultPath, url)
    }

    func choice(defaultPath: String) throws -> StoreChoice {
        let (path, url) = try settings(defaultPath: defaultPath)
        return url.map { .postgres(url: $0) } ?? .sqlite(path: path)
    }

    /// How a later command finds the same store, without the password.
    static func option(for store: StoreChoice) -> String {
        switch store {
        case .sqlite(let path): "--db \(path)"
        case .postgres: "--database \"$RANGERS_DATABASE_URL\""
        }
    }
}
