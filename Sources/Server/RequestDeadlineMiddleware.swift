import Hummingbird

/// Answers 503 with `Retry-After` a request whose handler has not answered within
/// `limit`: the only thing a handler waits on that long is a database that is
/// away (restarting, failing over), and a client is better told so than held.
/// The handler is cancelled (a query waiting for a connection gives up).
struct RequestDeadlineMiddleware<Context: RequestContext>: RouterMiddleware {
    let limit: Duration

    private enum Outcome: Sendable {
        case answered(Response)
        case late
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        try await withoutActuallyEscaping(next) { next in
            // The group ends before this closure does: `next` never outlives the call.
            nonisolated(unsafe) let next = next
            return try await withThrowingTaskGroup(of: Outcome.self) { group in
                group.addTask { .answered(try await next(request, context)) }
                group.addTask {
                    try await Task.sleep(for: limit)
                    return .late
                }
                defer { group.cancelAll() }
                switch try await group.next()! {
                case .answered(let response):
                    return response
                case .late:
                    throw APIError.databaseAway(
                        "the server did not answer within \(limit.components.seconds) s; its database may be away: ask again shortly")
                }
            }
        }
    }
}
