import Foundation
import Server
import Testing

/// openapi.yaml and the router describe the same API: a route added without
/// documenting it, or documented but not served, fails here.
@Suite struct OpenAPITests {
    static let sourceDocument = TestServer.repository.appendingPathComponent("Sources/Server/openapi.yaml")

    @Test func everyRouteIsDocumentedAndEveryDocumentedRouteExists() async throws {
        let server = try await TestServer()
        let served = Set(server.router().routes.map { "\($0.method.rawValue) \($0.path)" })
        let documented = Set(try OpenAPIPaths.operations(in: String(contentsOf: Self.sourceDocument, encoding: .utf8)))
        #expect(served.count >= 20, "the router lists its routes")
        #expect(served.subtracting(documented).sorted() == [], "routes missing from openapi.yaml")
        #expect(documented.subtracting(served).sorted() == [], "documented routes the router does not have")
    }

    @Test func everySchemaReferenceResolves() throws {
        let text = try String(contentsOf: Self.sourceDocument, encoding: .utf8)
        let defined = OpenAPIPaths.componentNames(in: text)
        let referenced = text.matches(of: /\$ref: "#\/components\/(\w+)\/(\w+)"/).map { "\($0.1)/\($0.2)" }
        #expect(!referenced.isEmpty)
        #expect(Set(referenced).subtracting(defined).sorted() == [])
        #expect(text.hasPrefix("openapi: 3.1."))
        #expect(defined.isSuperset(of: ["securitySchemes/playerKey", "securitySchemes/gameMasterKey", "schemas/Error"]))
    }

    @Test func theServerServesTheBundledDocument() async throws {
        let server = try await TestServer()
        let source = try String(contentsOf: Self.sourceDocument, encoding: .utf8)
        try await server.test { api in
            let reply = try await api.send(.get, "/openapi.yaml")
            #expect(reply.status == 200)
            #expect(reply.headers[.contentType]?.hasPrefix("application/yaml") == true)
            #expect(reply.text == source)
        }
    }

    @Test func theParserReadsMethodsUnderEachPath() {
        let yaml = """
            openapi: 3.1.0
            paths:
              /a/{id}:
                get:
                  summary: x
                  parameters:
                    - name: id
                post:
                  responses: {}
              /b:
                delete: {}
            components:
              schemas:
                Thing: {}
            """
        #expect(OpenAPIPaths.operations(in: yaml).sorted() == ["DELETE /b", "GET /a/{id}", "POST /a/{id}"])
        #expect(OpenAPIPaths.componentNames(in: yaml) == ["schemas/Thing"])
    }
}

/// Just enough YAML reading for the document's outline: keys by indentation.
enum OpenAPIPaths {
    static let methods: Set<String> = ["get", "put", "post", "delete", "patch", "head", "options", "trace"]

    /// "METHOD /path" for each operation under `paths:`.
    static func operations(in yaml: String) -> [String] {
        var operations: [String] = []
        var inPaths = false
        var path: String?
        for line in yaml.split(separator: "\n", omittingEmptySubsequences: false) {
            let indent = line.prefix { $0 == " " }.count
            let content = line.dropFirst(indent)
            if content.isEmpty || content.hasPrefix("#") { continue }
            if indent == 0 {
                inPaths = content == "paths:"
                continue
            }
            guard inPaths, let key = key(content) else { continue }
            if indent == 2 {
                path = key
            } else if indent == 4, let path, methods.contains(key) {
                operations.append("\(key.uppercased()) \(path)")
            }
        }
        return operations
    }

    /// "section/Name" for each entry under `components:`.
    static func componentNames(in yaml: String) -> Set<String> {
        var names: Set<String> = []
        var inComponents = false
        var section: String?
        for line in yaml.split(separator: "\n", omittingEmptySubsequences: false) {
            let indent = line.prefix { $0 == " " }.count
            let content = line.dropFirst(indent)
            if content.isEmpty || content.hasPrefix("#") { continue }
            if indent == 0 {
                inComponents = content == "components:"
                continue
            }
            guard inComponents, let key = key(content) else { continue }
            if indent == 2 { section = key } else if indent == 4, let section { names.insert("\(section)/\(key)") }
        }
        return names
    }

    /// The key of a `key:` or `key: value` line; quotes removed.
    private static func key(_ content: Substring) -> String? {
        guard !content.hasPrefix("- "), let colon = content.firstIndex(of: ":") else { return nil }
        let key = content[..<colon].trimmingCharacters(in: .whitespaces)
        return key.trimmingCharacters(in: CharacterSet(charactersIn: "\"'"))
    }
}
