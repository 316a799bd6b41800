import Foundation

/// Where the PostgreSQL store is: `postgres://user:password@host:port/database`
/// (`postgresql://` too; port 5432 when left out; `?sslmode=disable|prefer|require`).
/// Its description never shows the password.
public struct PostgresLocation: Hashable, Sendable, CustomStringConvertible {
    public enum TLSMode: String, Hashable, Sendable {
        case disable, prefer, require
    }

    public var host: String
    public var port: Int
    public var user: String
    public var password: String?
    public var database: String
    public var tls: TLSMode

    /// Refuses, saying what is wrong, anything that is not a usable URL; the
    /// message quotes no part of the URL that could hold the password.
    public init(url text: String) throws(PostgresStoreError) {
        guard let components = URLComponents(string: text), let scheme = components.scheme?.lowercased() else {
            throw .invalidURL("it is not a URL; expected postgres://user:password@host:port/database")
        }
        guard scheme == "postgres" || scheme == "postgresql" else {
            throw .invalidURL("its scheme is '\(scheme)'; expected postgres://")
        }
        guard let host = components.host, !host.isEmpty else { throw .invalidURL("it names no host") }
        guard let user = components.user, !user.isEmpty else { throw .invalidURL("it names no user") }
        let path = components.path.hasPrefix("/") ? String(components.path.dropFirst()) : components.path
        guard !path.isEmpty, !path.contains("/") else { throw .invalidURL("it names no database (postgres://…/database)") }
        let port = components.port ?? 5432
        guard (1...65535).contains(port) else { throw .invalidURL("its port \(port) is not in 1…65535") }
        var tls = TLSMode.prefer
        for item in components.queryItems ?? [] {
            switch item.name {
            case "sslmode":
                guard let value = item.value, let mode = TLSMode(rawValue: value) else {
                    throw .invalidURL("sslmode must be disable, prefer or require")
                }
                tls = mode
            default:
                throw .invalidURL("unknown option '\(item.name)' (only sslmode is understood)")
            }
        }
        self.host = host
        self.port = port
        self.user = components.user.flatMap { $0.removingPercentEncoding } ?? user
        password = components.password.flatMap { $0.removingPercentEncoding }
        database = path.removingPercentEncoding ?? path
        self.tls = tls
    }

    /// `postgres://user@host:port/database`: the password left out.
    public var description: String { "postgres://\(user)@\(host):\(port)/\(database)" }
}

/// Why the PostgreSQL store could not be opened. Each names what to fix and
/// never the password.
public enum PostgresStoreError: Error, Hashable, Sendable, CustomStringConvertible {
    case invalidURL(String)
    case cannotConnect(PostgresLocation, String)
    case authenticationFailed(PostgresLocation)
    case databaseMissing(PostgresLocation)
    case migrationFailed(String)

    public var description: String {
        switch self {
        case .invalidURL(let reason): "the database URL is not usable: \(reason)"
        case .cannotConnect(let location, let reason): "cannot reach PostgreSQL at \(location.host):\(location.port): \(reason)"
        case .authenticationFailed(let location): "PostgreSQL refused user '\(location.user)' (wrong password or no access) at \(location)"
        case .databaseMissing(let location): "database '\(location.database)' does not exist at \(location.host):\(location.port)"
        case .migrationFailed(let reason): "the schema could not be brought up to date: \(reason)"
        }
    }
}
