import Foundation
import Game
import Hummingbird
import HummingbirdTesting
import Server
import Services
import Store
import StoreTestSupport
import Testing

/// One application over a real SQLite file in a scratch folder, with the shipped
/// content and a fixed clock. All scratch folders live under one folder per test
/// process, removed at exit: a store may still be open when a test's last line runs.
struct TestServer {
    static let gameMasterKey = "gm_test_0123456789abcdefghijklmnopqrstuv"
    static let repository = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let contentDirectory = repository.appendingPathComponent("Content", isDirectory: true)
    /// 2026-01-01T00:00:00Z: adventures start here, so their times are known.
    static let startTime = Date(timeIntervalSince1970: 1_767_225_600)
    static let bundleID = "app.rangers.test"

    private static let root = FileManager.default.temporaryDirectory
        .appendingPathComponent("server-tests-\(ProcessInfo.processInfo.processIdentifier)")
    private static let removeRootAtExit: Void = {
        atexit { try? FileManager.default.removeItem(at: TestServer.root) }
    }()

    var configuration: ServerConfiguration
    let resources: ServerResources
    var store: any RangersStore { resources.store }
    var databasePath: String { configuration.databasePath }

    /// On PostgreSQL, the store is closed when the test ends if its suite has `.closesStores`.
    /// `databasePath`: a SQLite file of the test's choosing (on a small filesystem, say).
    /// The tests' requests all come from one address (or none, in process): the limits are high unless a test sets them.
    static let unlimited = AbuseLimits(signUpsPerMinute: 100_000, failedAuthenticationsPerMinute: 100_000)

    /// `databaseURL`: a PostgreSQL database another `TestServer` uses (two nodes on one).
    init(engine: StoreEngine = .sqlite, apns: APNsEndpointKind = .simulator, databasePath: String? = nil,
         databaseURL given: String? = nil, limits: AbuseLimits = unlimited,
         maximumRequestBodyBytes: Int = ServerConfiguration.defaultMaximumRequestBodyBytes,
         followers: FollowerSettings = FollowerSettings(), liveLinkSecret: String? = nil,
         now: @escaping @Sendable () -> Date = { TestServer.startTime }) async throws {
        Self.removeRootAtExit
        let directory = Self.root.appendingPathComponent(UUID().uuidString)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let databaseURL: String?
        if let given { databaseURL = given } else if engine == .postgres {
            databaseURL = try await PostgresTestServer.shared.freshDatabaseURL()
        } else {
            databaseURL = nil
        }
        configuration = ServerConfiguration(
            gameMasterKey: Self.gameMasterKey, apns: apns,
            databasePath: databasePath ?? directory.appendingPathComponent("rangers.sqlite").path,
            databaseURL: databaseURL,
            port: 0, contentDirectory: Self.contentDirectory, bundleID: Self.bundleID,
            maximumRequestBodyBytes: maximumRequestBodyBytes, followers: followers, liveLinkSecret: liveLinkSecret)
        configuration.limits = limits
        resources = try await ServerResources.open(configuration, now: now)
        OpenedStores.adopt(resources.store)
    }

    func router() -> Router<RangersRequestContext> { buildRouter(configuration, resources: resources) }

    /// Runs `body` against the application through Hummingbird's in-process test client.
    /// `.live` sends over a real port, from 127.0.0.1.
    func test<Value: Sendable>(_ setup: TestingSetup = .router,
                               _ body: @escaping @Sendable (API) async throws -> Value) async throws -> Value {
        let app = try buildApplication(configuration, resources: resources)
        return try await app.test(setup) { client in try await body(API(client: client)) }
    }

    /// The database's bytes (main file and write-ahead log). A request that stores
    /// nothing leaves them as they were; a committed write of any row changes them.
    func storedBytes() throws -> Data {
        var bytes = try Data(contentsOf: URL(fileURLWithPath: databasePath))
        if let wal = try? Data(contentsOf: URL(fileURLWithPath: databasePath + "-wal")) { bytes.append(wal) }
        return bytes
    }
}

/// Requests as a client sends them, bodies as JSON text, answers read as JSON.
struct API: Sendable {
    let client: any TestClientProtocol

    @discardableResult
    func send(_ method: HTTPRequest.Method, _ uri: String, key: String? = nil, body: String? = nil,
              headers: HTTPFields = [:]) async throws -> Reply {
        var headers = headers
        if let key { headers[.authorization] = "Bearer \(key)" }
        if body != nil, headers[.contentType] == nil { headers[.contentType] = "application/json" }
        let response = try await client.execute(uri: uri, method: method, headers: headers,
                                                body: body.map { ByteBuffer(string: $0) })
        return Reply(status: response.status.code, headers: response.headers,
                     text: String(buffer: response.body))
    }

    /// A binary body out, the raw bytes back: for audio.
    func sendBytes(_ method: HTTPRequest.Method, _ uri: String, key: String?, contentType: String? = nil,
                   bytes: [UInt8] = []) async throws -> (reply: Reply, bytes: [UInt8]) {
        var headers: HTTPFields = [:]
        if let key { headers[.authorization] = "Bearer \(key)" }
        if let contentType { headers[.contentType] = contentType }
        let response = try await client.execute(uri: uri, method: method, headers: headers,
                                                body: bytes.isEmpty ? nil : ByteBuffer(bytes: bytes))
        let body = Array(response.body.readableBytesView)
        return (Reply(status: response.status.code, headers: response.headers, text: String(decoding: body, as: UTF8.self)), body)
    }
}

struct Reply: Sendable, CustomStringConvertible {
    var status: Int
    var headers: HTTPFields
    var text: String

    var json: JSON { JSON(parsing: text) }
    var description: String { "\(status) \(text.prefix(300))" }

    /// The uniform error body's code, or nil if the body is not that shape:
    /// `error` and a non-empty `message`, and `field` (a string) only beside them.
    var errorCode: String? {
        guard case .object(let fields) = json, let message = fields["message"]?.string, !message.isEmpty,
              Set(fields.keys).isSubset(of: ["error", "message", "field"]), fields["field"].map({ $0.string != nil }) ?? true
        else { return nil }
        return fields["error"]?.string
    }

    /// The field an `invalidField` or `malformedPath` refusal names.
    var errorField: String? { json["field"].string }
}

/// Parsed JSON, read by key and index without the server's own types, so a test
/// fails when what goes over the wire changes.
enum JSON: Sendable, Equatable, Decodable {
    case object([String: JSON]), array([JSON]), string(String), number(Double), bool(Bool), null, invalid

    init(parsing text: String) {
        self = (try? JSONDecoder().decode(JSON.self, from: Data(text.utf8))) ?? .invalid
    }

    subscript(key: String) -> JSON {
        if case .object(let fields) = self { return fields[key] ?? .null }
        return .null
    }

    subscript(index: Int) -> JSON {
        if case .array(let items) = self, items.indices.contains(index) { return items[index] }
        return .null
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        // Bool before number: the decoder reads true/false only as a Bool.
        if container.decodeNil() { self = .null }
        else if let value = try? container.decode(Bool.self) { self = .bool(value) }
        else if let value = try? container.decode(Double.self) { self = .number(value) }
        else if let value = try? container.decode(String.self) { self = .string(value) }
        else if let value = try? container.decode([JSON].self) { self = .array(value) }
        else { self = .object(try container.decode([String: JSON].self)) }
    }

    var string: String? { if case .string(let value) = self { value } else { nil } }
    var int: Int? { if case .number(let value) = self { Int(exactly: value) } else { nil } }
    var bool: Bool? { if case .bool(let value) = self { value } else { nil } }
    var array: [JSON] { if case .array(let items) = self { items } else { [] } }
    var keys: Set<String> { if case .object(let fields) = self { Set(fields.keys) } else { [] } }
}

/// A hex token that differs for each seed, as the app would format one.
func token(_ seed: Int) -> String { String(repeating: String(format: "%02x", seed % 256), count: 32) }

/// A JSON string literal, escaped.
func quoted(_ text: String) -> String {
    String(decoding: try! JSONEncoder().encode(text), as: UTF8.self)
}
