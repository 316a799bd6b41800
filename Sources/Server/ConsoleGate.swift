import ConsoleView
import Foundation
import HTTPTypes
import Hummingbird
import Store

/// Who may use the console: a request with a current session (its cookie), and
/// for a change, the session's CSRF token in the form. Refusals are pages, not
/// JSON: a browser shows them.
enum ConsoleRefusal: Error {
    /// No session cookie at all: the browser is sent to sign in.
    case signInFirst
    /// A cookie that names no current session: refused, and the cookie dropped,
    /// so that the way back to signing in is open.
    case sessionEnded(String)
    /// A form without the session's token.
    case forbidden(String)
    /// A form that cannot be read.
    case badForm(String)
    /// A value the page cannot take (a query parameter out of its range).
    case invalid(String)
    /// Not now: what is asked of an adventure that has not ended, say.
    case conflict(String)
}

struct ConsoleGate: Sendable {
    static let sessionCookie = "rangers_console"
    /// Pairs the sign-in form with the browser that was shown it (there is no
    /// session yet to hold its token).
    static let signInCookie = "rangers_console_sign_in"
    static let largestForm = 4096

    let store: any RangersStore
    let now: @Sendable () -> Date

    /// The current session the request's cookie names.
    func session(_ request: Request) async throws -> ConsoleSession {
        guard let secret = request.cookies[Self.sessionCookie]?.value, !secret.isEmpty else { throw ConsoleRefusal.signInFirst }
        guard let session = try await store.currentConsoleSession(presented: secret, at: now()) else {
            throw ConsoleRefusal.sessionEnded("This session has ended or was never the console's. Sign in again.")
        }
        return session
    }

    /// A form posted by a current session, with its CSRF token: the form's fields.
    func change(_ request: Request) async throws -> (ConsoleSession, [String: String]) {
        let session = try await session(request)
        let form = try await Self.form(request)
        guard ConsoleRules.csrfMatches(form["csrf"], session) else {
            throw ConsoleRefusal.forbidden("This form did not come from this session's console page (its token is missing or wrong). Nothing was changed.")
        }
        return (session, form)
    }

    /// The session's secret, as the request's cookie presents it (for signing out).
    static func presentedSecret(_ request: Request) -> String? { request.cookies[sessionCookie]?.value }

    /// An `application/x-www-form-urlencoded` body, at most `largestForm` bytes.
    static func form(_ request: Request) async throws -> [String: String] {
        let type = request.headers[.contentType]?.split(separator: ";").first?.trimmingCharacters(in: .whitespaces).lowercased()
        guard type == "application/x-www-form-urlencoded" else {
            throw ConsoleRefusal.badForm("The console takes forms (application/x-www-form-urlencoded).")
        }
        let body: Data
        do {
            body = try await JSONCoding.body(of: request, limit: largestForm)
        } catch {
            throw ConsoleRefusal.badForm("The form is larger than \(largestForm) bytes.")
        }
        var fields: [String: String] = [:]
        for pair in String(decoding: body, as: UTF8.self).split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let name = decoded(parts[0]), let value = decoded(parts.count == 2 ? parts[1] : "") else {
                throw ConsoleRefusal.badForm("The form is not correctly encoded.")
            }
            // The first of a repeated field counts, as a browser sends each once.
            if fields[name] == nil { fields[name] = value }
        }
        return fields
    }

    private static func decoded(_ text: Substring) -> String? {
        text.replacingOccurrences(of: "+", with: " ").removingPercentEncoding
    }

    /// The session cookie: out of scripts' reach, never sent from another site,
    /// only over TLS when the request came over it, and gone when the session ends.
    static func sessionCookieHeader(secret: String, maxAge: Int, secure: Bool) -> String {
        cookie(sessionCookie, secret, maxAge: maxAge, secure: secure)
    }

    static func cookie(_ name: String, _ value: String, maxAge: Int, secure: Bool) -> String {
        "\(name)=\(value); Path=\(ConsolePaths.home); Max-Age=\(maxAge); HttpOnly; SameSite=Strict" + (secure ? "; Secure" : "")
    }

    /// Whether the browser reached us over TLS, as a proxy in front says.
    static func cameOverTLS(_ request: Request) -> Bool {
        request.uri.scheme == .https
            || request.headers[forwardedProto]?.split(separator: ",").first?.trimmingCharacters(in: .whitespaces).lowercased() == "https"
    }

    private static let forwardedProto = HTTPField.Name("X-Forwarded-Proto")!
}
