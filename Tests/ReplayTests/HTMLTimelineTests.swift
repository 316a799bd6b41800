import BrowserTestSupport
import Catalog
import Foundation
import Replay
import Store
import Testing
import Wire

/// The timeline page, loaded in a real headless Chromium.
@Suite struct HTMLTimelineTests {
    struct Browser {
        var dom: String
        var log: String
    }

    /// The DOM after the page's scripts ran, and the browser's log (console errors included).
    func load(_ page: String) throws -> Browser {
        guard let chromium = Chromium.executable() else { throw Chromium.Missing() }
        let directory = try ReplayFixture.scratchDirectory()
        let file = directory.appendingPathComponent("timeline.html")
        try page.write(to: file, atomically: true, encoding: .utf8)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: chromium)
        process.arguments = Chromium.arguments(profile: directory.appendingPathComponent("profile"))
            + ["--enable-logging=stderr", "--v=0", "--virtual-time-budget=5000", "--dump-dom", file.absoluteString]
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let killer = DispatchWorkItem { if process.isRunning { process.terminate() } }
        DispatchQueue.global().asyncAfter(deadline: .now() + 90, execute: killer)
        let dom = out.fileHandleForReading.readDataToEndOfFile()
        let log = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        killer.cancel()
        return Browser(dom: String(decoding: dom, as: UTF8.self), log: String(decoding: log, as: UTF8.self))
    }

    func status(in dom: String) throws -> (state: String, heroLines: Int, errors: Int) {
        let tag = try #require(dom.range(of: #"<div id="status"[^>]*>"#, options: .regularExpression).map { String(dom[$0]) },
                               "no status element in the DOM:\n\(dom.prefix(2000))")
        func attribute(_ name: String) -> String {
            guard let range = tag.range(of: #"\#(name)="([^"]*)""#, options: .regularExpression) else { return "" }
            return String(tag[range].dropFirst(name.count + 2).dropLast())
        }
        return (attribute("data-state"), Int(attribute("data-hero-lines")) ?? -1, Int(attribute("data-errors")) ?? -1)
    }

    func session() async throws -> SavedSession {
        let (_, store, id) = try await ReplayFixture.recordedAdventure()
        return try SavedSession(try await store.record(of: id), content: try ContentSnapshot(of: ReplayFixture.loaded))
    }

    @Test func thePageDrawsOneLinePerHeroWithoutScriptErrors() async throws {
        let saved = try await session()
        let page = try HTMLTimeline.page(saved, content: ReplayFixture.content)
        // Self-contained: nothing to fetch (the SVG namespace is a name, not a request).
        for reference in ["src=", "href=", "https://", "url(", "@import", "@font-face"] {
            #expect(!page.contains(reference), "the page refers to something outside it: \(reference)")
        }
        // The alert texts are there in every language of the catalog.
        let alert = try #require(try saved.pushes.decoded().compactMap(\.alert).first)
        guard case .localized(let key, _) = alert.title else { Issue.record("alert title not localized"); return }
        for language in StringCatalog.requiredLanguages {
            let text = try #require(ReplayFixture.loaded.strings.text(key, language: language))
            #expect(page.contains(text.replacingOccurrences(of: "\"", with: "\\\"")), "no \(language) text for \(key)")
        }

        let browser = try load(page)
        let (state, heroLines, errors) = try status(in: browser.dom)
        #expect(errors == 0, "script errors: \(browser.dom)")
        #expect(!browser.log.contains("Uncaught"), "\(browser.log)")
        #expect(state == "drawn")
        #expect(heroLines == ReplayFixture.heroes.count)
        for hero in ReplayFixture.heroes {
            #expect(browser.dom.contains(#"class="hero-line" data-hero="\#(hero)""#), "no line for \(hero)")
        }
        #expect(browser.dom.contains(#"class="boss-line""#))
        let markers = browser.dom.components(separatedBy: #"class="push-marker""#).count - 1
        #expect(markers == saved.pushes.count)
        let alertRows = browser.dom.components(separatedBy: #"class="alert-row""#).count - 1
        #expect(alertRows == (try saved.pushes.decoded()).filter { $0.alert != nil }.count)
    }

    /// The check above would notice a broken page: a script error is counted on the page.
    @Test func aScriptErrorIsCaughtByTheCheck() async throws {
        let page = try HTMLTimeline.page(try await session(), content: ReplayFixture.content)
            .replacingOccurrences(of: "var data = JSON.parse(", with: "notDefinedAnywhere(); var data = JSON.parse(")
        let browser = try load(page)
        let (state, heroLines, errors) = try status(in: browser.dom)
        #expect(errors == 1)
        #expect(state == "failed")
        #expect(heroLines == 0)
    }
}
