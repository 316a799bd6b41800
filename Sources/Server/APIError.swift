import Foundation
import Game
import Hummingbird
import Store

/// A refusal the client can act on: an HTTP status and the body
/// `{"error": "<code>", "message": "<human text>"}`. Codes are stable words a
/// client can switch on; messages are for people and may change.
struct APIError: Error, HTTPResponseError, CustomStringConvertible {
    var status: HTTPResponse.Status
    var code: String
    var message: String
    /// Seconds for a `Retry-After` header: when asking again may succeed.
    var retryAfter: Int?

    /// Messages quote ids from the request; an absurd id must not make an absurd answer.
    static let longestMessage = 400

    init(_ status: HTTPResponse.Status, _ code: String, _ message: String) {
        self.status = status
        self.code = code
        self.message = message.count > Self.longestMessage ? String(message.prefix(Self.longestMessage)) + "…" : message
    }

    var description: String { "\(status.code) \(code): \(message)" }

    static func malformedJSON(_ message: String) -> APIError { APIError(.badRequest, "malformedJSON", message) }
    static func invalid(_ message: String) -> APIError { APIError(.badRequest, "invalidInput", message) }
    static func invalidPushToken(_ message: String) -> APIError { APIError(.badRequest, "invalidPushToken", message) }
    static func unauthorized(_ message: String) -> APIError { APIError(.unauthorized, "unauthorized", message) }
    static func forbidden(_ message: String) -> APIError { APIError(.forbidden, "forbidden", message) }
    static func bodyTooLarge(limit: Int) -> APIError {
        APIError(.contentTooLarge, "bodyTooLarge", "request bodies are at most \(limit) bytes")
    }
    /// No broadcast channel can be had for a follower now; the follow is kept.
    static func channelUnavailable(retryAfter seconds: Int, limitReached: Bool) -> APIError {
        var error = APIError(.serviceUnavailable, "channelUnavailable", limitReached
            ? "the app has as many broadcast channels as it may; you follow, and a channel is made when one is free: ask again after \(seconds) s"
            : "the broadcast channel is not made yet; you follow, and it is made in the background: ask again after \(seconds) s")
        error.retryAfter = seconds
        return error
    }

    /// Each `StoreError` case already says which kind of answer it is.
    init(_ error: StoreError) {
        switch error {
        case .notFound: self.init(.notFound, "notFound", error.description)
        case .conflict: self.init(.conflict, "conflict", error.description)
        case .forbidden: self.init(.forbidden, "forbidden", error.description)
        case .invalid: self.init(.badRequest, "invalidInput", error.description)
        // Nothing the client sent can fix this; the details are for the log, not the client.
        case .corrupt: self.init(.internalServerError, "internal", "stored data could not be read")
        }
    }

    /// A setup the content cannot play (an unknown route, a party of 7, a tick of 0 s).
    init(_ error: AdventureSetupError) {
        self.init(.badRequest, "invalidAdventureSetup", error.description)
    }

    /// Names the field and what it should have been, never the whole body back.
    init(_ error: DecodingError) {
        func path(_ keys: [any CodingKey]) -> String {
            let text = keys.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
            return text.hasPrefix(".") ? String(text.dropFirst()) : text
        }
        switch error {
        case .keyNotFound(let key, let context):
            self = .malformedJSON("'\(path(context.codingPath + [key]))' is missing")
        case .typeMismatch(let type, let context):
            let field = context.codingPath.isEmpty ? "the body" : "'\(path(context.codingPath))'"
            self = .malformedJSON("\(field) should be \(Self.describe(type))")
        case .valueNotFound(let type, let context):
            let field = context.codingPath.isEmpty ? "the body" : "'\(path(context.codingPath))'"
            self = .malformedJSON("\(field) should be \(Self.describe(type)), not null")
        case .dataCorrupted(let context):
            if context.codingPath.isEmpty {
                self = .malformedJSON("the body is not valid JSON")
            } else {
                self = .malformedJSON("'\(path(context.codingPath))' has a value that is not allowed here")
            }
        @unknown default:
            self = .malformedJSON("the body could not be read as JSON")
        }
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
        var headers: HTTPFields = [.contentType: "application/json; charset=utf-8"]
        if status == .unauthorized { headers[.wwwAuthenticate] = "Bearer" }
        if let retryAfter { headers[.retryAfter] = String(retryAfter) }
        let body = try JSONCoding.encoder.encode(ErrorBody(error: code, message: message))
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: body)))
    }

    struct ErrorBody: Codable, Sendable {
        var error: String
        var message: String
    }
}

/// Turns every failure into the uniform JSON error. Outermost but for metrics, so
/// even "no such route" and Hummingbird's own refusals answer in the same shape.
/// Anything that is not a known refusal is a fault of the server: logged, and
/// answered with a 500 that says nothing of its insides.
struct JSONErrorMiddleware<Context: RequestContext>: RouterMiddleware {
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
            context.logger.error("request failed: \(String(reflecting: error))")
            return try APIError(.internalServerError, "internal", "the server failed to answer; this is logged")
                .response(from: request, context: context)
        }
    }
}
