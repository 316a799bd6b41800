import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import StoreTestSupport
import Testing

/// The console behind nginx in front of two nodes on one PostgreSQL database:
/// a session opened on one node is known to the other, and signing out on one
/// ends it on both.
@Suite(.enabled(if: PostgresTestServer.isAvailable, Comment(rawValue: PostgresTestServer.skipped)), .closesStores)
struct ConsoleClusterTests {
    @Test func aSessionOpenedOnOneNodeWorksOnTheOtherUntilItsSignedOutOnEither() async throws {
        let logs = try ScratchFiles.newDirectory()
        let cluster = try await Cluster.start(nodes: 2, leaseSeconds: 3, logs: logs)
        let secrets: [String]
        do {
            secrets = try await check(cluster)
        } catch {
            await cluster.stop()
            throw error
        }
        await cluster.stop()
        // Neither the keys tried nor the session's secret reach a node's log.
        for node in 1...2 {
            let log = try String(contentsOf: logs.appendingPathComponent("node-\(node).log"), encoding: .utf8)
            #expect(!log.isEmpty, "node-\(node) logged something: the check reads a real log")
            for secret in secrets { #expect(!log.contains(secret), "node-\(node)'s log holds a secret") }
        }
    }

    /// Returns the secrets that went by: the keys tried and the session's.
    private func check(_ cluster: Cluster) async throws -> [String] {
        let first = "http://127.0.0.1:\(cluster.nodes[0].port)", second = "http://127.0.0.1:\(cluster.nodes[1].port)"
        let browser = ConsoleHTTP()
        let form = try await browser.send(first + "/console")
        let formToken = try #require(form.text.firstMatch(of: /name="csrf" value="([^"]+)"/)?.1)
        let signInCookie = try #require(form.setCookie.firstMatch(of: /rangers_console_sign_in=([^;]+)/)?.1)
        let wrongKey = "gm_wrong_\(UUID().uuidString)"
        let refused = try await browser.send(first + "/console/sign-in", cookie: "rangers_console_sign_in=\(signInCookie)",
                                             form: "key=\(wrongKey)&csrf=\(formToken)")
        #expect(refused.status == 401)
        let signedIn = try await browser.send(first + "/console/sign-in", cookie: "rangers_console_sign_in=\(signInCookie)",
                                              form: "key=\(Cluster.gameMasterKey)&csrf=\(formToken)")
        #expect(signedIn.status == 303, "\(signedIn.status) \(signedIn.text.prefix(300))")
        let secret = try #require(signedIn.setCookie.firstMatch(of: /rangers_console=(cs_[A-Za-z0-9_-]+)/)?.1)
        let cookie = "rangers_console=\(secret)"

        // The other node, and nginx (whichever node it picks), know the session.
        let onSecond = try await browser.send(second + "/console", cookie: cookie)
        #expect(onSecond.status == 200 && onSecond.text.contains(#"id="signed-in""#), "\(onSecond.status)")
        for _ in 0..<4 {
            #expect(try await browser.send(cluster.api.base + "/console/audit", cookie: cookie).status == 200)
        }
        let audit = try await browser.send(second + "/console/audit", cookie: cookie)
        #expect(audit.text.contains(#"data-action="signIn""#))
        let sessionToken = try #require(audit.text.firstMatch(of: /name="csrf" value="([^"]+)"/)?.1)

        // An adventure's page names the node that plays it, whichever node serves the page.
        let adventure = try await AdventureChecks.start(through: cluster.api, gameMasterKey: Cluster.gameMasterKey, label: "console",
                                                        seed: 3, timeLimit: 60)
        try await cluster.api.waitFor("a node to hold the adventure", within: .seconds(20)) {
            try await cluster.holders()[adventure.id] != nil
        }
        let holder = try #require(try await cluster.holders()[adventure.id])
        for base in [first, second] {
            let page = try await browser.send(base + "/console/adventures/\(adventure.id)", cookie: cookie)
            #expect(page.text.contains(#"<span id="holder" class="code">\#(holder)</span>"#), "\(base)")
        }

        // Signed out on the second node: refused on the first at once.
        let signedOut = try await browser.send(second + "/console/sign-out", cookie: cookie, form: "csrf=\(sessionToken)")
        #expect(signedOut.status == 303)
        #expect(try await browser.send(first + "/console/audit", cookie: cookie).status == 403)
        #expect(try await browser.send(cluster.api.base + "/console/audit", cookie: cookie).status == 403)
        return [Cluster.gameMasterKey, wrongKey, String(secret)]
    }
}

/// Plain HTTP as a browser without cookie storage sends it: redirects not
/// followed, cookies only as the test passes them.
struct ConsoleHTTP: Sendable {
    struct Reply {
        var status: Int
        var text: String
        /// Every `Set-Cookie` line, joined.
        var setCookie: String
    }

    private final class NoRedirects: NSObject, URLSessionTaskDelegate, @unchecked Sendable {
        func urlSession(_ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
                        newRequest request: URLRequest, completionHandler: @escaping (URLRequest?) -> Void) {
            completionHandler(nil)
        }
    }

    private let session: URLSession = {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpShouldSetCookies = false
        configuration.httpCookieAcceptPolicy = .never
        configuration.httpCookieStorage = nil
        return URLSession(configuration: configuration, delegate: NoRedirects(), delegateQueue: nil)
    }()

    func send(_ url: String, cookie: String? = nil, form: String? = nil) async throws -> Reply {
        var request = URLRequest(url: URL(string: url)!)
        if let cookie { request.setValue(cookie, forHTTPHeaderField: "Cookie") }
        if let form {
            request.httpMethod = "POST"
            request.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
            request.httpBody = Data(form.utf8)
        }
        let (data, response) = try await session.data(for: request)
        let http = response as? HTTPURLResponse
        let setCookie = (http?.allHeaderFields.first { ($0.key as? String)?.lowercased() == "set-cookie" }?.value as? String) ?? ""
        return Reply(status: http?.statusCode ?? 0, text: String(decoding: data, as: UTF8.self), setCookie: setCookie)
    }
}
