import Hummingbird

/// Every path the router serves and the methods it takes there, read from the
/// router itself once all routes are registered: a new route is covered without
/// being named here.
struct RouteTable: Sendable {
    private struct Entry: Sendable {
        let components: [RouterPath.Element]
        var methods: Set<HTTPRequest.Method>
    }

    private let entries: [Entry]

    init<Context: RequestContext>(_ routes: [Router<Context>.RouteDescription]) {
        var entries: [Entry] = []
        for route in routes {
            let components = Array(route.path.components)
            if let index = entries.firstIndex(where: { $0.components == components }) {
                entries[index].methods.insert(route.method)
            } else {
                entries.append(Entry(components: components, methods: [route.method]))
            }
        }
        self.entries = entries
    }

    /// What `Allow` says for `path` (as it came, still percent-encoded, as the
    /// router matches it), or nil when no route has that path. Where several
    /// templates fit (`/v1/parties/join` and `/v1/parties/{partyID}`) the router
    /// takes the one with a literal segment first, and so does this.
    func allowedMethods(forPath path: String) -> [HTTPRequest.Method]? {
        let segments = path.split(separator: "/", omittingEmptySubsequences: true)
        let fitting = entries.filter { entry in
            entry.components.count == segments.count && zip(entry.components, segments).allSatisfy { $0 ~= $1 }
        }
        let literalness = { (entry: Entry) in zip(entry.components, segments).map { $0 == $1 } }
        guard let chosen = fitting.max(by: { Self.isMoreLiteral(literalness($1), than: literalness($0)) }) else {
            return nil
        }
        var methods = chosen.methods
        // HEAD comes with every GET (the router generates it), OPTIONS with every path.
        if methods.contains(.get) { methods.insert(.head) }
        methods.insert(.options)
        return methods.sorted { Self.order($0) < Self.order($1) }
    }

    /// Literal segments beat parameters, the first difference deciding.
    private static func isMoreLiteral(_ lhs: [Bool], than rhs: [Bool]) -> Bool {
        guard let difference = zip(lhs, rhs).first(where: { $0 != $1 }) else { return false }
        return difference.0
    }

    private static let usualOrder: [HTTPRequest.Method] = [.get, .head, .post, .put, .patch, .delete, .options]

    private static func order(_ method: HTTPRequest.Method) -> String {
        usualOrder.firstIndex(of: method).map { String($0) } ?? "9" + method.rawValue
    }
}

/// Answers what no route took: a path the API has, asked with another method,
/// gets 405 and `Allow` (OPTIONS gets 204 and `Allow`); a path it does not have
/// gets 404. Both as the JSON error, like every other refusal.
///
/// Added to the router after every route, so it wraps only the router's
/// not-found responder, which Hummingbird builds with all the middleware there is
/// when the server starts. A route added later still passes through: the router
/// names the route it matched before any of its middleware runs.
struct UnroutedRequestMiddleware<Context: RequestContext>: RouterMiddleware {
    let routes: RouteTable

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard context.endpointPath == nil else { return try await next(request, context) }
        guard let allowed = routes.allowedMethods(forPath: request.uri.path) else {
            throw APIError(.notFound, "notFound", "there is no \(request.uri.path); see /openapi.yaml for the API's paths")
        }
        if request.method == .options {
            return Response(status: .noContent, headers: [.allow: allowed.map(\.rawValue).joined(separator: ", ")])
        }
        throw APIError.methodNotAllowed(request.method, allowed: allowed)
    }
}
