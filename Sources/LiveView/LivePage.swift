import Crypto
import Foundation
import Replay
import Vocabulary

/// The live page of an adventure: an empty frame the stream fills. Self-contained
/// like the replay's page: its style and scripts are inline (the timeline chart is
/// the replay's own), and its Content-Security-Policy lets it run those and reach
/// nothing but its own stream.
public enum LivePage {
    static let scripts = [HTMLTimelineAssets.errorCatcher, HTMLTimelineAssets.chart, LivePageScript.script]
    static let style = LivePageStyle.css

    /// `streamURL`: where the page's stream is (with the link's token), relative to the page.
    public static func html(adventure: AdventureID, streamURL: String) -> String {
        let title = HTMLTimeline.escape("Live · adventure \(adventure.rawValue)")
        return """
            <!DOCTYPE html>
            <html lang="en">
            <head>
            <meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <meta name="referrer" content="no-referrer">
            <link rel="icon" href="data:,">
            <title>\(title)</title>
            <script>\(scripts[0])</script>
            <style>\(style)</style>
            </head>
            <body>
            <main id="live" data-stream="\(HTMLTimeline.escape(streamURL))">
            <header class="top"><h1 id="title">\(title)</h1><span id="connection" data-state="connecting">connecting…</span></header>
            <p id="summary"></p>
            <p id="message"></p>
            <div class="layout">
            <section id="cards" aria-label="The phones"></section>
            <section id="timeline" aria-label="Timeline"><h2>Timeline</h2><div id="legend"></div>
            <svg id="chart" xmlns="http://www.w3.org/2000/svg" role="img" aria-label="Health over time"></svg>
            <p id="timeline-note"></p></section>
            </div>
            <div id="status" data-state="connecting" data-errors="0" data-cards="0" data-hero-lines="0"></div>
            </main>
            <script>\(scripts[1])</script>
            <script>\(scripts[2])</script>
            </body>
            </html>

            """
    }

    /// Only the page's own inline scripts and style run (by their hashes), and it
    /// connects nowhere but to its own origin: a page changed to load anything from
    /// outside is refused by the browser.
    public static let contentSecurityPolicy: String = {
        func hash(_ text: String) -> String { "'sha256-\(Data(SHA256.hash(data: Data(text.utf8))).base64EncodedString())'" }
        return "default-src 'none'; script-src \(scripts.map(hash).joined(separator: " ")); style-src \(hash(style)); "
            + "connect-src 'self'; img-src data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
    }()
}
