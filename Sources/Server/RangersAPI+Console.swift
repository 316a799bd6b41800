import ConsoleView
import Foundation
import HTTPTypes
import Hummingbird
import Store

/// The game master's console: pages in the browser over the same store and
/// rules as the API. Signing in trades the game master's key, posted in a form,
/// for a session kept in the store, so that every node knows it.
extension RangersAPI {
    var consoleGate: ConsoleGate { ConsoleGate(store: store, now: now) }

    /// `GET /console`: the overview when signed in, else the sign-in form.
    func consoleHome(_ request: Request) async throws -> Response {
        try await consolePage {
            guard ConsoleGate.presentedSecret(request) != nil else { return signInForm(request) }
            let session = try await consoleGate.session(request)
            return Self.page(ConsolePages.overview(Self.signedIn(session),
                                                   expiresAt: Date(timeIntervalSince1970: TimeInterval(session.expiresAt))))
        }
    }

    /// `POST /console/sign-in`: the game master's key in the form. A wrong key is
    /// a 401 (counted by the abuse limits, like a wrong bearer key) and recorded
    /// in the audit trail; the key itself is never recorded or logged.
    func consoleSignIn(_ request: Request, context: RangersRequestContext) async throws -> Response {
        try await consolePage {
            let form = try await ConsoleGate.form(request)
            guard ConsoleRules.tokensMatch(request.cookies[ConsoleGate.signInCookie]?.value, form["csrf"]) else {
                throw ConsoleRefusal.forbidden("This sign-in form was not the one this browser was shown (its token is missing or wrong). Open /console and try again.")
            }
            let client = clientAddress(request, context)
            let key = form["key"] ?? ""
            guard auth.isGameMasterKey(key) else {
                let why = try await store.player(authenticatedBy: key) != nil
                    ? "a player's key does not sign in to the console" : "that is not the game master's key"
                try await store.recordConsoleAudit(NewConsoleAuditEntry(action: .signInRefused, session: nil, client: client, detail: why),
                                                   at: now())
                var response = signInForm(request, error: "Refused: \(why).")
                response.status = .unauthorized
                return response
            }
            let (secret, session) = ConsoleRules.newSession(at: now())
            try await store.openConsoleSession(session, client: client, at: now())
            var response = Self.redirect(to: ConsolePaths.home)
            let secure = ConsoleGate.cameOverTLS(request)
            response.headers.append(HTTPField(name: .setCookie, value: ConsoleGate.sessionCookieHeader(
                secret: secret, maxAge: ConsoleRules.sessionLifetime, secure: secure)))
            response.headers.append(HTTPField(name: .setCookie, value: ConsoleGate.cookie(ConsoleGate.signInCookie, "", maxAge: 0, secure: secure)))
            return response
        }
    }

    /// `POST /console/sign-out`: ends the session in the store, so on every node.
    func consoleSignOut(_ request: Request, context: RangersRequestContext) async throws -> Response {
        try await consolePage {
            _ = try await consoleGate.change(request)
            if let secret = ConsoleGate.presentedSecret(request), let hash = ConsoleRules.hash(ofPresented: secret) {
                try await store.closeConsoleSession(secretHash: hash, client: clientAddress(request, context), at: now())
            }
            var response = Self.redirect(to: ConsolePaths.home)
            response.headers.append(HTTPField(name: .setCookie, value: ConsoleGate.sessionCookieHeader(
                secret: "", maxAge: 0, secure: ConsoleGate.cameOverTLS(request))))
            return response
        }
    }

    /// `GET /console/audit[?before=<id>]`: the audit trail, newest first, a page at a time.
    func consoleAudit(_ request: Request) async throws -> Response {
        try await consolePage {
            let session = try await consoleGate.session(request)
            let before: Int64?
            switch request.uri.queryParameters["before"].map(String.init) {
            case nil: before = nil
            case let text?:
                guard let id = Int64(text), id > 0 else { throw ConsoleRefusal.invalid("'before' must be an entry number, not '\(text.prefix(20))'.") }
                before = id
            }
            let entries = try await store.consoleAudit(before: before, limit: Self.auditPage + 1)
            let shown = entries.prefix(Self.auditPage)
            let older = entries.count > Self.auditPage ? shown.last.map { "\(ConsolePaths.audit)?before=\($0.id)" } : nil
            return Self.page(ConsolePages.audit(Self.signedIn(session), rows: Array(shown), older: older))
        }
    }

    // MARK: - Shared

    static let auditPage = 50

    /// The sign-in form with a fresh token, set beside it in a cookie.
    private func signInForm(_ request: Request, error: String? = nil) -> Response {
        let token = ConsoleRules.newSession(at: now()).session.csrfToken
        var response = Self.page(ConsolePages.signIn(csrfToken: token, error: error))
        response.headers.append(HTTPField(name: .setCookie, value: ConsoleGate.cookie(
            ConsoleGate.signInCookie, token, maxAge: 3600, secure: ConsoleGate.cameOverTLS(request))))
        return response
    }

    func clientAddress(_ request: Request, _ context: RangersRequestContext) -> String {
        configuration.limits.clientAddress(peer: context.peerAddress, forwardedFor: request.headers[.xForwardedFor])
    }

    /// Runs a page's work, answering its refusals as pages, the API's and the
    /// store's too (an unknown party is a 404 page). Faults (the store away, a
    /// 5xx) go on to the error middleware.
    func consolePage(_ body: () async throws -> Response) async throws -> Response {
        do {
            return try await body()
        } catch let error as APIError where (400..<500).contains(error.status.code) {
            return Self.refusalPage(error.message, status: error.status)
        } catch let error as StoreError where (400..<500).contains(APIError(error).status.code) {
            return Self.refusalPage(APIError(error).message, status: APIError(error).status)
        } catch let refusal as ConsoleRefusal {
            switch refusal {
            case .signInFirst:
                return Self.redirect(to: ConsolePaths.home)
            case .sessionEnded(let message):
                var response = Self.refusalPage(message, status: .forbidden)
                response.headers.append(HTTPField(name: .setCookie, value: ConsoleGate.sessionCookieHeader(secret: "", maxAge: 0, secure: false)))
                return response
            case .forbidden(let message):
                return Self.refusalPage(message, status: .forbidden)
            case .badForm(let message):
                var response = Self.page(ConsolePages.refused(title: "Not understood", message: message))
                response.status = .badRequest
                return response
            case .conflict(let message):
                return Self.refusalPage(message, status: .conflict)
            case .invalid(let message):
                var response = Self.page(ConsolePages.refused(title: "Not understood", message: message))
                response.status = .unprocessableContent
                return response
            }
        }
    }

    static func refusalPage(_ message: String, status: HTTPResponse.Status) -> Response {
        var response = page(ConsolePages.refused(title: "Refused", message: message))
        response.status = status
        return response
    }

    static func signedIn(_ session: ConsoleSession) -> ConsoleLayout.SignedIn {
        ConsoleLayout.SignedIn(reference: session.reference.rawValue, csrfToken: session.csrfToken)
    }

    static func page(_ html: String) -> Response {
        Response(status: .ok, headers: consoleHeaders(contentType: "text/html; charset=utf-8"),
                 body: .init(byteBuffer: ByteBuffer(string: html)))
    }

    /// A form's answer: the browser goes on with a GET, so reloading does not post again.
    static func redirect(to path: String) -> Response {
        var headers = consoleHeaders(contentType: nil)
        headers[.location] = path
        return Response(status: .seeOther, headers: headers)
    }

    private static func consoleHeaders(contentType: String?) -> HTTPFields {
        var headers: HTTPFields = [
            .cacheControl: "no-store", .contentSecurityPolicy: ConsoleLayout.contentSecurityPolicy,
            HTTPField.Name("Referrer-Policy")!: "no-referrer", HTTPField.Name("X-Content-Type-Options")!: "nosniff",
        ]
        if let contentType { headers[.contentType] = contentType }
        return headers
    }
}
