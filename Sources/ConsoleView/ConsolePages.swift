import Foundation
import Store

/// The console's pages about signing in and what the console has done.
public enum ConsolePages {
    /// The sign-in form. `csrfToken` pairs the form with the cookie set beside it;
    /// `error` says why the last try was refused.
    public static func signIn(csrfToken: String, error: String? = nil) -> String {
        let problem = error.map { #"<p class="error" id="key-error" role="alert">\#(ConsoleLayout.escape($0))</p>"# } ?? ""
        let described = error == nil ? "" : #" aria-describedby="key-error" aria-invalid="true""#
        return ConsoleLayout.page(title: "Sign in", current: nil, signedIn: nil, body: """
            <form method="post" action="\(ConsolePaths.signIn)" id="sign-in">
            \(ConsoleLayout.csrfField(csrfToken))
            <label for="key">The game master's key</label>
            <input type="password" id="key" name="key" autocomplete="current-password" required autofocus\(described)>
            \(problem)
            <p><button type="submit">Sign in</button></p>
            </form>
            <p class="note">The key goes in this form only, never in an address. A session lasts eight hours or until you sign out.</p>
            """)
    }

    /// What a signed-in game master sees first.
    public static func overview(_ session: ConsoleLayout.SignedIn, expiresAt: Date) -> String {
        ConsoleLayout.page(title: "Overview", current: ConsolePaths.home, signedIn: session, body: """
            <p id="signed-in">Signed in as the game master (session <span id="session">\(ConsoleLayout.escape(session.reference))</span>).</p>
            <p>The session ends at <time id="expires" datetime="\(iso(expiresAt))">\(readable(expiresAt))</time>.</p>
            <ul>\(ConsoleLayout.sections.dropFirst().map { #"<li><a href="\#($0.path)">\#(ConsoleLayout.escape($0.title))</a></li>"# }.joined())</ul>
            """)
    }

    /// The newest entries first; `older` is the next page's address, if there is one.
    public static func audit(_ session: ConsoleLayout.SignedIn, rows: [ConsoleAuditEntry], older: String?) -> String {
        let lines = rows.map { row in
            let at = Date(timeIntervalSince1970: TimeInterval(row.at))
            return """
            <tr data-action="\(row.action.rawValue)"><td><time datetime="\(iso(at))">\(readable(at))</time></td>\
            <td>\(row.action.rawValue)</td><td>\(ConsoleLayout.escape(row.session?.rawValue ?? "–"))</td>\
            <td>\(ConsoleLayout.escape(row.client))</td><td>\(ConsoleLayout.escape(row.detail))</td></tr>
            """
        }.joined(separator: "\n")
        let table = rows.isEmpty ? #"<p class="note">Nothing recorded yet.</p>"# : """
            <div class="table"><table id="audit">
            <thead><tr><th scope="col">Time (UTC)</th><th scope="col">What</th><th scope="col">Session</th>\
            <th scope="col">Client</th><th scope="col">Detail</th></tr></thead>
            <tbody>
            \(lines)
            </tbody></table></div>
            """
        let pager = older.map { #"<p class="pager"><a href="\#(ConsoleLayout.escape($0))" rel="next">Older entries</a></p>"# } ?? ""
        return ConsoleLayout.page(title: "Audit trail", current: ConsolePaths.audit, signedIn: session, body: """
            <p class="note">Every sign-in, refused sign-in, sign-out and change made from the console, newest first.</p>
            \(table)
            \(pager)
            """)
    }

    /// A refusal the browser shows: why, and the way back to signing in.
    public static func refused(title: String, message: String) -> String {
        ConsoleLayout.page(title: title, current: nil, signedIn: nil, body: """
            <p class="error" id="refusal">\(ConsoleLayout.escape(message))</p>
            <p><a href="\(ConsolePaths.home)">Sign in</a></p>
            """)
    }

    static func iso(_ date: Date) -> String { date.formatted(.iso8601) }

    static func readable(_ date: Date) -> String {
        var format = Date.ISO8601FormatStyle(timeZone: .gmt)
        format = format.year().month().day().dateSeparator(.dash).time(includingFractionalSeconds: false).timeSeparator(.colon)
        return date.formatted(format).replacingOccurrences(of: "T", with: " ").replacingOccurrences(of: "Z", with: "")
    }
}
