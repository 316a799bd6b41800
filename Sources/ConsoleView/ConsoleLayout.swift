import Crypto
import Foundation
import Replay

/// The frame every console page shares: the same head, style and navigation,
/// and the sign-out form, so that no page can leave one out.
public enum ConsoleLayout {
    /// Where the signed-in pages are, in the order the navigation lists them.
    public static let sections: [(path: String, title: String)] = [
        (ConsolePaths.home, "Overview"),
        (ConsolePaths.parties, "Parties"),
        (ConsolePaths.adventures, "Running"),
        (ConsolePaths.finished, "Finished"),
        (ConsolePaths.delivery, "Delivery"),
        (ConsolePaths.audit, "Audit trail"),
    ]

    /// A signed-in game master's session as the pages need it.
    public struct SignedIn: Sendable {
        public var reference: String
        public var csrfToken: String

        public init(reference: String, csrfToken: String) {
            self.reference = reference
            self.csrfToken = csrfToken
        }
    }

    /// `body` is HTML already escaped; `current` is the navigation's path to mark.
    /// `refresh`: seconds after which the browser loads the page again (a page
    /// that follows something running, without a script). `follow`: a live
    /// page's event stream the page follows with `ConsoleScript` (the refresh
    /// then only serves a browser without scripts).
    static func page(title: String, current: String?, signedIn: SignedIn?, refresh: Int? = nil, follow: String? = nil,
                     body: String) -> String {
        let navigation = signedIn.map { session in
            let links = sections.map { section in
                let mark = section.path == current ? #" aria-current="page""# : ""
                return #"<a href="\#(section.path)"\#(mark)>\#(escape(section.title))</a>"#
            }.joined()
            return """
                <nav aria-label="Console">\(links)</nav>
                <form class="sign-out" method="post" action="\(ConsolePaths.signOut)">\(csrfField(session.csrfToken))\
                <span class="session">session \(escape(session.reference))</span>\
                <button type="submit">Sign out</button></form>
                """
        } ?? ""
        return """
            <!DOCTYPE html>
            <html lang="en">
            <head>
            <meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <meta name="referrer" content="no-referrer">\(refresh.map { refresh in
                let tag = #"<meta http-equiv="refresh" content="\#(refresh)">"#
                return "\n" + (follow == nil ? tag : "<noscript>\(tag)</noscript>")
            } ?? "")
            <link rel="icon" href="data:,">
            <title>\(escape(title)) · Emoji Rangers console</title>
            <style>\(ConsoleStyle.css)</style>
            </head>
            <body>
            <header class="top"><p class="brand">Emoji Rangers · game master's console</p>\(navigation)</header>
            <main id="main"\(follow.map { #" data-follow="\#(escape($0))""# } ?? "")>
            <h1>\(escape(title))</h1>
            \(body)
            </main>\(follow == nil ? "" : "\n<script>\(ConsoleScript.source)</script>")
            </body>
            </html>

            """
    }

    /// The hidden field every form of a session carries: `ConsoleRules.csrfMatches` checks it.
    static func csrfField(_ token: String) -> String {
        #"<input type="hidden" name="csrf" value="\#(escape(token))">"#
    }

    static func escape(_ text: String) -> String { HTMLTimeline.escape(text) }

    /// The pages load nothing but their inline style and their one script (each by
    /// its hash); the script reads the live stream and the page itself from this
    /// server, and forms post to the console itself.
    public static let contentSecurityPolicy: String = {
        func hash(_ text: String) -> String { "'sha256-\(Data(SHA256.hash(data: Data(text.utf8))).base64EncodedString())'" }
        return "default-src 'none'; style-src \(hash(ConsoleStyle.css)); script-src \(hash(ConsoleScript.source)); "
            + "connect-src 'self'; img-src data:; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
    }()
}

/// The console's addresses, for the pages' links and forms and the server's routes alike.
public enum ConsolePaths {
    public static let home = "/console"
    public static let signIn = "/console/sign-in"
    public static let signOut = "/console/sign-out"
    public static let audit = "/console/audit"
    public static let parties = "/console/parties"
    public static let adventures = "/console/adventures"
    public static let finished = "/console/finished"
    public static let delivery = "/console/delivery"

    public static func adventure(_ id: String) -> String { adventures + "/" + segment(id) }

    public static func party(_ id: String) -> String { parties + "/" + segment(id) }

    /// One path segment, percent-encoded: ids may hold any character.
    public static func segment(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: .alphanumerics.union(CharacterSet(charactersIn: "-._~"))) ?? text
    }
}
