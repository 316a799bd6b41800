import Foundation
import Hummingbird
import Testing

/// A path the API has, asked with a method it does not take, is answered 405 with
/// `Allow`; OPTIONS lists the same methods; every GET answers HEAD. Checked for
/// every path the router has, so a new route gets the same treatment untested.
@Suite struct MethodNotAllowedTests {
    static let probes: [HTTPRequest.Method] = [.get, .head, .post, .put, .patch, .delete, .trace, HTTPRequest.Method("QUERY")!,
                                               HTTPRequest.Method("BREW")!]

    private func allowed(_ reply: Reply) -> Set<String> {
        Set((reply.headers[.allow] ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) })
    }

    @Test func everyPathRefusesOtherMethodsWith405AndSaysWhichItTakes() async throws {
        let server = try await TestServer()
        let methodsByTemplate = Dictionary(grouping: server.router().routes, by: \.path.description)
            .mapValues { Set($0.map(\.method.rawValue)) }
        try await server.test { api in
            let fixture = try await Fixture.make(api)
            for (template, served) in methodsByTemplate {
                let sample = try #require(RouteSample.all.first { $0.template == template })
                let uri = String(sample.uri(fixture).prefix { $0 != "?" })
                var methods = served
                if methods.contains("GET") { methods.insert("HEAD") }
                methods.insert("OPTIONS")
                for method in Self.probes where !methods.contains(method.rawValue) {
                    try await expectRefused(server, api, "\(method) \(template)", method, uri, key: fixture.ana.key,
                                            status: 405, code: "methodNotAllowed")
                    let reply = try await api.send(method, uri, key: fixture.ana.key)
                    #expect(allowed(reply) == methods, "\(method) \(template): Allow \(reply.headers[.allow] ?? "none")")
                }
                let options = try await api.send(.options, uri)
                #expect(options.status == 204, "OPTIONS \(template): \(options)")
                #expect(allowed(options) == methods, "OPTIONS \(template): Allow \(options.headers[.allow] ?? "none")")
                #expect(options.text.isEmpty)
            }
        }
    }

    @Test func aLiteralSegmentTakesPrecedenceOverAParameter() async throws {
        // `/v1/parties/join` is its own path, not the party "join".
        let server = try await TestServer()
        try await server.test { api in
            let fixture = try await Fixture.make(api)
            let reply = try await api.send(.get, "/v1/parties/join", key: fixture.ana.key)
            #expect(reply.status == 405, "\(reply)")
            #expect(allowed(reply) == ["POST", "OPTIONS"])
        }
    }

    @Test func everyGetAnswersHeadWithoutABody() async throws {
        let server = try await TestServer()
        try await server.test { api in
            let fixture = try await Fixture.make(api)
            for uri in ["/healthz", "/openapi.yaml", "/v1/parties/\(fixture.partyID)"] {
                let get = try await api.send(.get, uri, key: fixture.ana.key)
                let head = try await api.send(.head, uri, key: fixture.ana.key)
                #expect(head.status == get.status, "HEAD \(uri): \(head)")
                #expect(head.text.isEmpty, "HEAD \(uri) has no body")
            }
            // HEAD is a GET: it needs the same key.
            #expect(try await api.send(.head, "/v1/parties/\(fixture.partyID)").status == 401)
        }
    }
}
