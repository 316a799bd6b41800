import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Chromium driven over the DevTools protocol through `--remote-debugging-pipe`:
/// JSON messages, each ended by a NUL byte, written to the browser's fd 3 and read
/// from its fd 4. No port, no WebSocket.
public final class DevToolsBrowser: @unchecked Sendable {
    /// A protocol event: its method, parameters and the page session it came from.
    public struct Event: @unchecked Sendable {
        public var method: String
        public var params: [String: Any]
        public var session: String?
    }

    public struct ProtocolError: Error, CustomStringConvertible {
        public var description: String
    }

    private let pid: pid_t
    private let commands: Int32
    private let replies: Int32
    private let lock = NSLock()
    private var nextID = 1
    private var pending: [Int: CheckedContinuation<Data, any Error>] = [:]
    private var received: [Event] = []
    private var ended = false

    /// Starts a headless Chromium with `profile` as its user data folder; its own
    /// output goes to `profile/chromium.log`.
    public static func launch(profile: URL, extraArguments: [String] = []) throws -> DevToolsBrowser {
        guard let executable = Chromium.executable() else { throw Chromium.Missing() }
        try FileManager.default.createDirectory(at: profile, withIntermediateDirectories: true)
        var toBrowser: [Int32] = [0, 0], fromBrowser: [Int32] = [0, 0]
        guard pipe(&toBrowser) == 0, pipe(&fromBrowser) == 0 else {
            throw ProtocolError(description: "pipe failed: \(String(cString: strerror(errno)))")
        }
        // Only the browser gets these: not another process the tests start meanwhile.
        for fd in toBrowser + fromBrowser { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, toBrowser[0], 3)
        posix_spawn_file_actions_adddup2(&actions, fromBrowser[1], 4)
        let log = profile.appendingPathComponent("chromium.log").path
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, log, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        // Nothing else of this process goes to the browser: an inherited listening
        // socket would keep a stopped server's port taken for as long as it runs.
        typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np") else {
            throw ProtocolError(description: "glibc 2.34 or newer is needed (posix_spawn_file_actions_addclosefrom_np)")
        }
        _ = unsafeBitCast(symbol, to: CloseFrom.self)(&actions, 5)
        let arguments = [executable] + Chromium.arguments(profile: profile) + ["--remote-debugging-pipe"] + extraArguments
            + ["about:blank"]
        var argv = arguments.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        let status = posix_spawn(&pid, executable, &actions, nil, &argv, environ)
        Glibc.close(toBrowser[0])
        Glibc.close(fromBrowser[1])
        guard status == 0 else {
            Glibc.close(toBrowser[1])
            Glibc.close(fromBrowser[0])
            throw ProtocolError(description: "could not start \(executable): \(String(cString: strerror(status)))")
        }
        let browser = DevToolsBrowser(pid: pid, commands: toBrowser[1], replies: fromBrowser[0])
        let reader = Thread { browser.readReplies() }
        reader.name = "devtools-reader"
        reader.start()
        return browser
    }

    private init(pid: pid_t, commands: Int32, replies: Int32) {
        self.pid = pid
        self.commands = commands
        self.replies = replies
    }

    /// Sends a command (to a page when `session` is given) and returns its result;
    /// a protocol error, or no reply within `limit`, throws.
    @discardableResult
    public func send(_ method: String, _ params: [String: Any] = [:], session: String? = nil,
                     limit: TimeInterval = 30) async throws -> [String: Any] {
        var message: [String: Any] = ["method": method, "params": params]
        if let session { message["sessionId"] = session }
        let data: Data = try await withCheckedThrowingContinuation { continuation in
            let id: Int? = lock.withLock {
                guard !ended else { return nil }
                let id = nextID
                nextID += 1
                pending[id] = continuation
                return id
            }
            guard let id else {
                continuation.resume(throwing: ProtocolError(description: "the browser has exited"))
                return
            }
            message["id"] = id
            do {
                var bytes = try JSONSerialization.data(withJSONObject: message)
                bytes.append(0)
                try write(bytes)
            } catch {
                fail(id, with: error)
            }
            DispatchQueue.global().asyncAfter(deadline: .now() + limit) { [weak self] in
                self?.fail(id, with: ProtocolError(description: "\(method) had no reply within \(Int(limit)) s"))
            }
        }
        let reply = (try JSONSerialization.jsonObject(with: data) as? [String: Any]) ?? [:]
        if let error = reply["error"] as? [String: Any] {
            throw ProtocolError(description: "\(method): \(error["message"] as? String ?? "\(error)")")
        }
        return reply["result"] as? [String: Any] ?? [:]
    }

    /// Every event so far, oldest first.
    public var events: [Event] { lock.withLock { received } }

    /// Closes the browser (and kills it if it does not go).
    public func close() async {
        _ = try? await send("Browser.close", limit: 5)
        for _ in 0..<50 {
            var status: Int32 = 0
            if waitpid(pid, &status, WNOHANG) == pid { return }
            try? await Task.sleep(for: .milliseconds(100))
        }
        kill(pid, SIGKILL)
        var status: Int32 = 0
        waitpid(pid, &status, 0)
    }

    private func write(_ bytes: Data) throws {
        try bytes.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = Glibc.write(commands, buffer.baseAddress! + offset, buffer.count - offset)
                guard written > 0 else { throw ProtocolError(description: "writing to the browser failed") }
                offset += written
            }
        }
    }

    private func fail(_ id: Int, with error: any Error) {
        lock.withLock { pending.removeValue(forKey: id) }?.resume(throwing: error)
    }

    private func readReplies() {
        var buffer = Data()
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = Glibc.read(replies, &chunk, chunk.count)
            if count <= 0 { break }
            buffer.append(contentsOf: chunk[0..<count])
            while let end = buffer.firstIndex(of: 0) {
                let message = buffer[buffer.startIndex..<end]
                buffer.removeSubrange(buffer.startIndex...end)
                dispatch(Data(message))
            }
        }
        Glibc.close(replies)
        let waiting = lock.withLock {
            ended = true
            defer { pending = [:] }
            return pending.values
        }
        waiting.forEach { $0.resume(throwing: ProtocolError(description: "the browser has exited")) }
    }

    private func dispatch(_ message: Data) {
        guard let object = (try? JSONSerialization.jsonObject(with: message)) as? [String: Any] else { return }
        if let id = object["id"] as? Int {
            lock.withLock { pending.removeValue(forKey: id) }?.resume(returning: message)
        } else if let method = object["method"] as? String {
            let event = Event(method: method, params: object["params"] as? [String: Any] ?? [:], session: object["sessionId"] as? String)
            lock.withLock { received.append(event) }
        }
    }

    deinit { Glibc.close(commands) }
}

/// One tab, attached with its own session: navigate, evaluate, screenshot, and
/// what it reported as errors.
public struct DevToolsPage: Sendable {
    public let browser: DevToolsBrowser
    public let session: String

    /// A new tab of `width`×`height` CSS pixels (`mobile`: a phone's viewport and touch).
    public static func open(in browser: DevToolsBrowser, width: Int, height: Int, mobile: Bool) async throws -> DevToolsPage {
        let target = try await browser.send("Target.createTarget", ["url": "about:blank"])
        guard let targetID = target["targetId"] as? String else { throw DevToolsBrowser.ProtocolError(description: "no target id") }
        let attached = try await browser.send("Target.attachToTarget", ["targetId": targetID, "flatten": true])
        guard let session = attached["sessionId"] as? String else { throw DevToolsBrowser.ProtocolError(description: "no session id") }
        let page = DevToolsPage(browser: browser, session: session)
        for domain in ["Runtime.enable", "Log.enable", "Page.enable"] { try await page.send(domain) }
        try await page.send("Emulation.setDeviceMetricsOverride",
                            ["width": width, "height": height, "deviceScaleFactor": 1, "mobile": mobile])
        return page
    }

    @discardableResult
    public func send(_ method: String, _ params: [String: Any] = [:]) async throws -> [String: Any] {
        try await browser.send(method, params, session: session)
    }

    public func navigate(_ url: String) async throws {
        let result = try await send("Page.navigate", ["url": url])
        if let error = result["errorText"] as? String { throw DevToolsBrowser.ProtocolError(description: "navigating to \(url): \(error)") }
    }

    /// The value of a JavaScript expression (JSON-able); a thrown exception throws.
    public func evaluate(_ expression: String) async throws -> Any? {
        let result = try await send("Runtime.evaluate", ["expression": expression, "returnByValue": true, "awaitPromise": true])
        if let exception = result["exceptionDetails"] as? [String: Any] {
            throw DevToolsBrowser.ProtocolError(description: "\(expression.prefix(80)): \(exception["text"] ?? exception)")
        }
        return (result["result"] as? [String: Any])?["value"]
    }

    /// A PNG of the whole page (beyond the viewport too).
    public func screenshot(to file: URL) async throws {
        let result = try await send("Page.captureScreenshot", ["format": "png", "captureBeyondViewport": true])
        guard let base64 = result["data"] as? String, let png = Data(base64Encoded: base64) else {
            throw DevToolsBrowser.ProtocolError(description: "no screenshot data")
        }
        try png.write(to: file)
    }

    /// What the page reported as errors, in order: `console.error` calls, uncaught
    /// exceptions, and the browser's own error entries (failed loads, refused
    /// content), each with its source and URL when it has them.
    /// `index` is the event's place among `browser.events`.
    public var errors: [(source: String, url: String, text: String, index: Int)] {
        browser.events.enumerated().filter { $0.element.session == session }.compactMap { index, event in
            switch event.method {
            case "Runtime.consoleAPICalled" where ["error", "assert"].contains(event.params["type"] as? String):
                let args = (event.params["args"] as? [[String: Any]]) ?? []
                return ("console", "", args.map { "\($0["value"] ?? $0["description"] ?? "")" }.joined(separator: " "), index)
            case "Runtime.exceptionThrown":
                let details = event.params["exceptionDetails"] as? [String: Any] ?? [:]
                let exception = details["exception"] as? [String: Any]
                return ("exception", details["url"] as? String ?? "",
                        "\(details["text"] ?? "") \(exception?["description"] ?? "")", index)
            case "Log.entryAdded":
                let entry = event.params["entry"] as? [String: Any] ?? [:]
                guard entry["level"] as? String == "error" else { return nil }
                return (entry["source"] as? String ?? "", entry["url"] as? String ?? "", entry["text"] as? String ?? "", index)
            default:
                return nil
            }
        }
    }
}
