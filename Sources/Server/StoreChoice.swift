import Foundation
import Logging
import Services
import Store
import StorePostgres
import StoreSQLite

/// Which store the server keeps everything in: a SQLite file (the embedded
/// default, nothing to run beside it) or a PostgreSQL database (what a studio
/// runs in production, and what several nodes share).
public enum StoreChoice: Sendable, Hashable, CustomStringConvertible {
    case sqlite(path: String)
    /// `postgres://user:password@host:port/database`; `node` is this process's id
    /// among those sharing it (generated when nil), `lease` how long its heartbeat
    /// and leases last without renewal.
    case postgres(url: String, node: String? = nil, lease: Duration = .seconds(5))

    /// The configuration setting that names this store, for messages.
    public var setting: String {
        switch self {
        case .sqlite: "databasePath"
        case .postgres: "databaseURL"
        }
    }

    /// Where the store is, never with the password: safe to log.
    public var description: String {
        switch self {
        case .sqlite(let path): path
        case .postgres(let url, _, _): (try? PostgresLocation(url: url).description) ?? "postgres://…"
        }
    }

    /// What is wrong with the setting itself, before anything is opened.
    var problem: ConfigurationProblem? {
        switch self {
        case .sqlite(let path):
            guard path.trimmingCharacters(in: .whitespaces).isEmpty else { return nil }
            return ConfigurationProblem(setting: setting, message: "must name a file")
        case .postgres(let url, _, _):
            do {
                _ = try PostgresLocation(url: url)
                return nil
            } catch {
                return ConfigurationProblem(setting: setting, message: error.description)
            }
        }
    }

    /// Opens the store, bringing its schema up to date. A store that cannot be
    /// opened (no file, no server, a wrong password, no such database) is a
    /// configuration problem naming this setting; its message holds no password.
    /// `asNode`: the process plays adventures and sends pushes (a server), rather
    /// than only reading (a replay); on PostgreSQL only nodes share the work.
    public func open(asNode: Bool = true,
                     logger: Logger = Logger(label: "rangers.store")) async throws(InvalidConfiguration) -> any RangersStore {
        do {
            switch self {
            case .sqlite(let path):
                if asNode, let reason = Self.unwritable(path) {
                    throw InvalidConfiguration(problems: [ConfigurationProblem(setting: setting, message: "cannot write '\(path)': \(reason)")])
                }
                return try SQLiteStore(path: path)
            case .postgres(let url, let node, let lease):
                return try await PostgresStore.open(try PostgresLocation(url: url), node: node ?? UUID().uuidString.lowercased(),
                                                    lease: lease, asNode: asNode, logger: logger)
            }
        } catch let error as InvalidConfiguration {
            throw error
        } catch let error as PostgresStoreError {
            throw InvalidConfiguration(problems: [ConfigurationProblem(setting: setting, message: error.description)])
        } catch {
            throw InvalidConfiguration(problems: [ConfigurationProblem(setting: setting, message: "cannot open '\(self)': \(error)")])
        }
    }

    /// Why a server could not write the SQLite file (or, for a new one, create it
    /// and its WAL beside it), or nil: a read-only file or filesystem is refused at
    /// start rather than at the first write.
    static func unwritable(_ path: String) -> String? {
        let folder = (path as NSString).deletingLastPathComponent
        for (name, target) in [(path, path), ("its folder", folder.isEmpty ? "." : folder)] {
            guard FileManager.default.fileExists(atPath: target) else { continue }
            if access(target, W_OK) != 0 { return "\(name == path ? "the file" : name) is read-only (\(String(cString: strerror(errno))))" }
        }
        return nil
    }

    /// Lets go of a store `open` opened: a PostgreSQL node says it stopped (its
    /// claimed pushes are free for other nodes at once) and closes its connections.
    public static func close(_ store: any RangersStore) async {
        await (store as? PostgresStore)?.close()
    }
}
