import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import HTTPTypes
import OpenAPIRuntime
import OpenAPIURLSession

extension Client {
    /// A client of the server at `serverURL` over URLSession, sending `key` (a
    /// player's API key or the game master's) with every request; nil for the routes
    /// open to all (creating a player, health).
    public init(serverURL: URL, key: String?, session: URLSession = .shared) {
        self.init(
            serverURL: serverURL,
            transport: URLSessionTransport(configuration: .init(session: session)),
            middlewares: key.map { [BearerKeyMiddleware(key: $0)] } ?? []
        )
    }
}

/// Sends a key as `Authorization: Bearer …`, which the document's security schemes
/// (`playerKey`, `gameMasterKey`) ask for: the generated client leaves credentials
/// to middleware.
public struct BearerKeyMiddleware: ClientMiddleware, CustomStringConvertible {
    private let authorization: String

    public init(key: String) { authorization = "Bearer \(key)" }

    public func intercept(
        _ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String,
        next: @Sendable (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)
    ) async throws -> (HTTPResponse, HTTPBody?) {
        var request = request
        request.headerFields[.authorization] = authorization
        return try await next(request, body, baseURL)
    }

    /// Never the key: a client printed in a log must not leak it.
    public var description: String { "BearerKeyMiddleware(key: <redacted>)" }
}
