import Foundation
import Hummingbird
import Testing

/// A browser's side of the console over the test client: the cookies it was
/// given, sent back as a browser would, and the CSRF token of the last page.
struct ConsoleBrowser: Sendable {
    var cookies: [String: String] = [:]
    /// The hidden `csrf` field of the last page read.
    var csrf = ""

    var cookieHeader: HTTPFields {
        cookies.isEmpty ? [:] : [.cookie: cookies.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: "; ")]
    }

    /// The `Set-Cookie` lines of a reply, whole, by cookie name.
    static func setCookies(_ reply: Reply) -> [String: String] {
        Dictionary(reply.headers[values: .setCookie].map { line in
            (String(line.prefix { $0 != "=" }), line)
        }, uniquingKeysWith: { $1 })
    }

    mutating func take(_ reply: Reply) {
        for (name, line) in Self.setCookies(reply) {
            let value = String(line.drop { $0 != "=" }.dropFirst().prefix { $0 != ";" })
            if value.isEmpty { cookies[name] = nil } else { cookies[name] = value }
        }
        if let match = reply.text.firstMatch(of: /name="csrf" value="([^"]*)"/) { csrf = String(match.1) }
    }

    mutating func get(_ api: API, _ path: String, headers: HTTPFields = [:]) async throws -> Reply {
        var all = cookieHeader
        all.append(contentsOf: headers)
        let reply = try await api.send(.get, path, headers: all)
        take(reply)
        return reply
    }

    /// Posts `fields` as a form, with the page's token unless the fields say otherwise.
    mutating func post(_ api: API, _ path: String, _ fields: [String: String?], headers: HTTPFields = [:]) async throws -> Reply {
        var all = cookieHeader
        all[.contentType] = "application/x-www-form-urlencoded"
        all.append(contentsOf: headers)
        let body = fields.compactMap { name, value in
            value.map { "\(name)=\($0.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? $0)" }
        }.joined(separator: "&")
        let reply = try await api.send(.post, path, body: body, headers: all)
        take(reply)
        return reply
    }

    /// Opens the sign-in form and posts `key` with its token.
    mutating func signIn(_ api: API, key: String, headers: HTTPFields = [:]) async throws -> Reply {
        let form = try await get(api, "/console", headers: headers)
        #expect(form.status == 200, "\(form)")
        return try await post(api, "/console/sign-in", ["key": key, "csrf": csrf], headers: headers)
    }
}
