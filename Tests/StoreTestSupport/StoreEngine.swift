import Foundation
import Store
import StorePostgres
import StoreSQLite
import Testing

/// The storage engines every storage test runs against, as a test argument:
/// `@Test(arguments: StoreEngine.available)`.
public enum StoreEngine: String, Sendable, CaseIterable, CustomTestStringConvertible {
    case sqlite, postgres

    public var testDescription: String { rawValue }

    /// SQLite always; PostgreSQL where it is installed, or wherever CI demands it
    /// (there a server that cannot start fails the tests, never skips them).
    public static let available: [StoreEngine] = {
        guard PostgresTestServer.isAvailable else {
            FileHandle.standardError.write(Data("note: \(PostgresTestServer.skipped)\n".utf8))
            return [.sqlite]
        }
        return [.sqlite, .postgres]
    }()

    /// A new, empty database of this engine.
    public func database() async throws -> TestDatabase {
        switch self {
        case .sqlite:
            return TestDatabase(engine: self, location: try ScratchFiles.newDirectory().appendingPathComponent("rangers.sqlite").path)
        case .postgres:
            return TestDatabase(engine: self, location: try await PostgresTestServer.shared.freshDatabaseURL())
        }
    }

    /// A store on a new, empty database, closed when the test ends (`.closesStores`).
    public func open() async throws -> any RangersStore {
        try await database().open()
    }
}

/// One test database, which a test may open more than once (a restart).
public struct TestDatabase: Sendable {
    public let engine: StoreEngine
    /// The SQLite file's path, or the PostgreSQL URL.
    public let location: String

    public init(engine: StoreEngine, location: String) {
        self.engine = engine
        self.location = location
    }

    /// `lease` is how long a PostgreSQL store's heartbeat keeps its claims and
    /// leases; a store not `asNode` only reads (it is no node of a cluster).
    public func open(lease: Duration = .seconds(10), asNode: Bool = true) async throws -> any RangersStore {
        switch engine {
        case .sqlite:
            return try SQLiteStore(path: location)
        case .postgres:
            let store = try await PostgresStore.open(try PostgresLocation(url: location), lease: lease, asNode: asNode)
            OpenedStores.current?.add(store)
            return store
        }
    }

    /// Stops a store as a process that ends does: a PostgreSQL store says its node
    /// stopped and closes its connections; a SQLite file needs nothing.
    public func stop(_ store: any RangersStore) async {
        await (store as? PostgresStore)?.close()
    }
}

/// Folders for SQLite files, all under one per test process, removed when it
/// exits: a store may still be open when a test's last line has run.
public enum ScratchFiles {
    private static let root = FileManager.default.temporaryDirectory
        .appendingPathComponent("rangers-store-tests-\(ProcessInfo.processInfo.processIdentifier)")
    private static let removeRootAtExit: Void = {
        atexit { try? FileManager.default.removeItem(at: ScratchFiles.root) }
    }()

    public static func newDirectory() throws -> URL {
        removeRootAtExit
        let directory = root.appendingPathComponent(UUID().uuidString)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }
}

/// The PostgreSQL stores a test opened, closed when it ends so that connections
/// do not pile up across a suite.
public final class OpenedStores: @unchecked Sendable {
    @TaskLocal public static var current: OpenedStores?
    private let lock = NSLock()
    private var stores: [PostgresStore] = []

    func add(_ store: PostgresStore) { lock.withLock { stores.append(store) } }

    /// Closes `store` with the others when the test ends, if it needs closing.
    public static func adopt(_ store: any RangersStore) {
        if let store = store as? PostgresStore { current?.add(store) }
    }

    func closeAll() async {
        for store in lock.withLock({ stores }) { await store.close() }
    }
}

/// Closes every PostgreSQL store each test (or test case) of the suite opened.
public struct ClosesStores: SuiteTrait, TestTrait, TestScoping {
    public var isRecursive: Bool { true }

    public func provideScope(for test: Test, testCase: Test.Case?,
                             performing function: @Sendable () async throws -> Void) async throws {
        guard testCase != nil else { return try await function() }
        let opened = OpenedStores()
        do {
            try await OpenedStores.$current.withValue(opened) { try await function() }
        } catch {
            await opened.closeAll()
            throw error
        }
        await opened.closeAll()
    }
}

extension Trait where Self == ClosesStores {
    public static var closesStores: Self { ClosesStores() }
}
