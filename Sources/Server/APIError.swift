import Foundation
import Game
import Hummingbird
import Services
import Store

/// A refusal the client can act on: an HTTP status and the body
/// `{"error": "<code>", "message": "<human text>"}`, plus `"field"` naming the
/// request field at fault (`heroes[1]`, `timeLimit`, a path or query parameter)
/// when there is one. Codes are stable words a client can switch on; messages are
/// for people and may change.
struct APIError: Error, HTTPResponseError, CustomStringConvertible {
    var status: HTTPResponse.Status
    var code: String
    var message: String
    var field: String?
    /// Beyond the content type: `Allow` on a 405, `Retry-After` when asking again may succeed.
    var headers: HTTPFields = [:]

    /// Messages quote ids from the request; an absurd id must not make an absurd answer.
    static let longestMessage = 400

    init(_ status: HTTPResponse.Status, _ code: String, _ message: String, field: String? = nil) {
        self.status = status
        self.code = code
        self.message = message.count > Self.longestMessage ? String(message.prefix(Self.longestMessage)) + "…" : message
        self.field = field.map { $0.count > Self.longestMessage ? String($0.prefix(Self.longestMessage)) + "…" : $0 }
    }

    var description: String { "\(status.code) \(code): \(message)" }

    /// The body is not JSON, or not the JSON object the route reads.
    static func malformedJSON(_ message: String) -> APIError { APIError(.badRequest, "malformedJSON", message) }
    /// A well-formed request with one value the route does not accept: missing, of
    /// the wrong type, out of range, not one of the allowed values. `field` is its
    /// path in the body (`heroes[1]`), or the path or query parameter's name.
    static func invalidField(_ field: String, _ problem: String) -> APIError {
        APIError(.unprocessableContent, "invalidField", "'\(field)' \(problem)", field: field)
    }
    /// A path parameter whose percent-encoding is broken or does not decode to UTF-8.
    static func malformedPath(_ parameter: String) -> APIError {
        APIError(.badRequest, "malformedPath", "path parameter '\(parameter)' is not percent-encoded UTF-8", field: parameter)
    }
    static func unauthorized(_ message: String) -> APIError { APIError(.unauthorized, "unauthorized", message) }
    static func forbidden(_ message: String) -> APIError { APIError(.forbidden, "forbidden", message) }
    static func bodyTooLarge(limit: Int) -> APIError {
        APIError(.contentTooLarge, "bodyTooLarge", "request bodies are at most \(limit) bytes")
    }
    /// No broadcast channel can be had for a follower now; the follow is kept.
    /// `fallbackRefused` says why following per token instead was refused.
    static func channelUnavailable(retryAfter seconds: Int, limitReached: Bool, fallbackRefused: String? = nil) -> APIError {
        var error = APIError(.serviceUnavailable, "channelUnavailable", (limitReached
            ? "the app has as many broadcast channels as it may; you follow, and a channel is made when one is free: ask again after \(seconds) s"
            : "the broadcast channel is not made yet; you follow, and it is made in the background: ask again after \(seconds) s")
            + (fallbackRefused.map { "; following per token instead was refused: \($0)" } ?? ""))
        error.headers[.retryAfter] = String(seconds)
        return error
    }

    /// The database does not answer (restarting, failing over, its disk full):
    /// nothing the client sent is wrong, and asking again later may succeed.
    static func databaseAway(_ message: String = "the database does not answer now; ask again shortly") -> APIError {
        var error = APIError(.serviceUnavailable, "unavailable", message)
        error.headers[.retryAfter] = "5"
        return error
    }

    /// The path exists, with other methods: they are listed in `Allow`.
    static func methodNotAllowed(_ method: HTTPRequest.Method, allowed: [HTTPRequest.Method]) -> APIError {
        let allow = allowed.map(\.rawValue).joined(separator: ", ")
        var error = APIError(.methodNotAllowed, "methodNotAllowed", "\(method.rawValue) is not allowed here; this path takes \(allow)")
        error.headers[.allow] = allow
        return error
    }

    /// Each `StoreError` case already says which kind of answer it is.
    init(_ error: StoreError) {
        switch error {
        case .notFound: self.init(.notFound, "notFound", error.description)
        case .conflict: self.init(.conflict, "conflict", error.description)
        case .forbidden: self.init(.forbidden, "forbidden", error.description)
        // The API checks every field before the store sees it; this is the store's own guard.
        case .invalid: self.init(.badRequest, "invalidInput", error.description)
        // Nothing the client sent can fix this; the details are for the log, not the client.
        case .corrupt: self.init(.internalServerError, "internal", "stored data could not be read")
        case .unavailable(let reason):
            self.init(.serviceUnavailable, "unavailable", reason + "; ask again shortly")
            headers[.retryAfter] = "5"
        }
    }

    /// A body that is not a JSON object is malformed; a JSON object with a field
    /// the route cannot take names that field by its path.
    init(_ error: DecodingError) {
        switch error {
        case .keyNotFound(let key, let context):
            self = .invalidField(Self.path(context.codingPath + [key]), "is missing")
        case .typeMismatch(let type, let context):
            self = context.codingPath.isEmpty
                ? .malformedJSON("the body must be a JSON object")
                : .invalidField(Self.path(context.codingPath), "should be \(Self.describe(type))")
        case .valueNotFound(let type, let context):
            self = context.codingPath.isEmpty
                ? .malformedJSON("the body must be a JSON object, not null")
                : .invalidField(Self.path(context.codingPath), "should be \(Self.describe(type)), not null")
        case .dataCorrupted(let context):
            self = context.codingPath.isEmpty
                ? .malformedJSON("the body is not valid JSON")
                : .invalidField(Self.path(context.codingPath), context.debugDescription)
        @unknown default:
            self = .malformedJSON("the body could not be read as JSON")
        }
    }

    /// `heroes[1]`, `timeLimit`, `a.b[2].c`: how the API document and a client name a field.
    static func path(_ keys: [any CodingKey]) -> String {
        let text = keys.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
        return text.hasPrefix(".") ? String(text.dropFirst()) : text
    }

    private static func describe(_ type: Any.Type) -> String {
        switch type {
        case is Int.Type, is UInt64.Type: "a whole number"
        case is String.Type: "a string"
        case is Bool.Type: "true or false"
        default: "\(type)".contains("Array") ? "a list" : "an object"
        }
    }

    /// Error codes for statuses Hummingbird itself answers with (no route, too large).
    static func code(for status: HTTPResponse.Status) -> String {
        switch status.code {
        case 400: "badRequest"
        case 401: "unauthorized"
        case 403: "forbidden"
        case 404: "notFound"
        case 405: "methodNotAllowed"
        case 409: "conflict"
        case 413: "bodyTooLarge"
        case 400..<500: "badRequest"
        case 503: "unavailable"
        default: "internal"
        }
    }

    func response(from request: Request, context: some RequestContext) throws -> Response {
        var headers = headers
        headers[.contentType] = "application/json; charset=utf-8"
        if status == .unauthorized { headers[.wwwAuthenticate] = "Bearer" }
        let body = try JSONCoding.encoder.encode(ErrorBody(error: code, message: message, field: field))
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: body)))
    }

    struct ErrorBody: Codable, Sendable {
        var error: String
        var message: String
        var field: String?
    }
}

/// Turns every failure into the uniform JSON error. Outermost but for metrics, so
/// even "no such route" and Hummingbird's own refusals answer in the same shape.
/// Anything that is not a known refusal is a fault of the server: logged, and
/// answered with a 500 that says nothing of its insides.
struct JSONErrorMiddleware<Context: RequestContext>: RouterMiddleware {
    /// Asked, after an error no refusal explains, whether the database answers now.
    let store: any RangersStore

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as APIError {
            return try error.response(from: request, context: context)
        } catch let error as StoreError {
            if case .corrupt = error { context.logger.error("stored data unreadable: \(error)") }
            return try APIError(error).response(from: request, context: context)
        } catch let error as any HTTPResponseError {
            let message = (error as? HTTPError)?.body ?? error.status.reasonPhrase
            return try APIError(error.status, APIError.code(for: error.status), message).response(from: request, context: context)
        } catch {
            // A database that does not answer is "not now", not "broken": the client asks again.
            guard await store.answers(within: .seconds(1)) else {
                context.logger.warning("request failed while the database does not answer: \(error)")
                return try APIError.databaseAway().response(from: request, context: context)
            }
            context.logger.error("request failed: \(String(reflecting: error))")
            return try APIError(.internalServerError, "internal", "the server failed to answer; this is logged")
                .response(from: request, context: context)
        }
    }
}
