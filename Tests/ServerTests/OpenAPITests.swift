import Foundation
import Server
import Testing
import Yams

/// openapi.yaml and the router describe the same API: a route added without
/// documenting it, or documented but not served, fails here.
@Suite struct OpenAPITests {
    @Test func everyRouteIsDocumentedAndEveryDocumentedRouteExists() async throws {
        let server = try await TestServer()
        // The console's pages are not the API: docs/console.md has them (the next test).
        let served = Set(server.router().routes.map { "\($0.method.rawValue) \($0.path)" }.filter { !$0.contains(" /console") })
        let documented = Set(try OpenAPIDocumentFile.load().operations.map(\.name))
        #expect(served.count >= 20, "the router lists its routes")
        #expect(served.subtracting(documented).sorted() == [], "routes missing from openapi.yaml")
        #expect(documented.subtracting(served).sorted() == [], "documented routes the router does not have")
    }

    @Test func everyConsoleRouteIsInTheConsolePageAndTheAPIPagesOtherRoutes() async throws {
        let server = try await TestServer()
        let console = server.router().routes.map { "\($0.method.rawValue) \($0.path)" }.filter { $0.contains(" /console") }
        #expect(console.count >= 4)
        for name in ["docs/console.md", "docs/api.md"] {
            let page = try String(contentsOf: TestServer.repository.appendingPathComponent(name), encoding: .utf8)
            for route in console { #expect(page.contains("`\(route)`"), "\(name) lists `\(route)`") }
        }
    }

    @Test func everyReferenceResolves() throws {
        let document = try OpenAPIDocumentFile.load()
        let text = try String(contentsOf: OpenAPIDocumentFile.source, encoding: .utf8)
        let referenced = text.matches(of: /\$ref: "#\/components\/(\w+)\/(\w+)"/).map { "\($0.1)/\($0.2)" }
        #expect(!referenced.isEmpty)
        for reference in Set(referenced) {
            #expect(document.component(reference) != nil, "\(reference) is referenced but not defined")
        }
        #expect(text.hasPrefix("openapi: 3.1."))
        for name in ["securitySchemes/playerKey", "securitySchemes/gameMasterKey", "schemas/Error"] {
            #expect(document.component(name) != nil)
        }
    }

    @Test func theServerServesTheBundledDocument() async throws {
        let server = try await TestServer()
        let source = try String(contentsOf: OpenAPIDocumentFile.source, encoding: .utf8)
        try await server.test { api in
            let reply = try await api.send(.get, "/openapi.yaml")
            #expect(reply.status == 200)
            #expect(reply.headers[.contentType]?.hasPrefix("application/yaml") == true)
            #expect(reply.text == source)
        }
    }
}

/// openapi.yaml, parsed: its operations and components, `$ref`s followed.
struct OpenAPIDocumentFile {
    static let source = TestServer.repository.appendingPathComponent("Sources/Server/openapi.yaml")
    static let methods = ["get", "put", "post", "delete", "patch", "head", "options", "trace"]

    struct Operation {
        var method: String
        var path: String
        var fields: [String: Any]
        var name: String { "\(method.uppercased()) \(path)" }
    }

    let root: [String: Any]

    static func load() throws -> OpenAPIDocumentFile {
        let text = try String(contentsOf: source, encoding: .utf8)
        guard let root = try Yams.load(yaml: text) as? [String: Any] else {
            throw CocoaError(.fileReadCorruptFile, userInfo: [NSFilePathErrorKey: source.path])
        }
        return OpenAPIDocumentFile(root: root)
    }

    var operations: [Operation] {
        let paths = root["paths"] as? [String: Any] ?? [:]
        return paths.sorted { $0.key < $1.key }.flatMap { path, item in
            let item = item as? [String: Any] ?? [:]
            return Self.methods.compactMap { method in
                (item[method] as? [String: Any]).map { Operation(method: method, path: path, fields: $0) }
            }
        }
    }

    /// `section/Name` under components, e.g. `schemas/Error`.
    func component(_ name: String) -> [String: Any]? {
        let parts = name.split(separator: "/").map(String.init)
        guard parts.count == 2 else { return nil }
        return ((root["components"] as? [String: Any])?[parts[0]] as? [String: Any])?[parts[1]] as? [String: Any]
    }

    func schema(_ name: String) -> [String: Any]? { component("schemas/\(name)") }

    /// `value`, or what its `$ref` points at.
    func resolved(_ value: Any?) -> [String: Any]? {
        guard let object = value as? [String: Any] else { return nil }
        guard let reference = object["$ref"] as? String else { return object }
        return component(reference.replacingOccurrences(of: "#/components/", with: ""))
    }

    /// The schema of a property of a named schema, references followed.
    func property(_ name: String, of schemaName: String) -> [String: Any]? {
        resolved((schema(schemaName)?["properties"] as? [String: Any])?[name])
    }
}
