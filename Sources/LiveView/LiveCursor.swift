import Store

/// How far a page has followed an adventure: the last tick of the timeline it has
/// and where it is in the push log. Sent as each message's event id, so a browser
/// that reconnects says it back (`Last-Event-ID`) and gets only what it lacks.
public struct LiveCursor: Hashable, Sendable, CustomStringConvertible {
    public var tick: Int
    public var pushLog: PushLogCursor

    public init(tick: Int = 0, pushLog: PushLogCursor = .start) {
        self.tick = tick
        self.pushLog = pushLog
    }

    public static let start = LiveCursor()

    /// `"<tick>:<push log cursor>"`, e.g. `"42:0.1534"`.
    public var description: String { "\(tick):\(pushLog)" }

    /// Nil for text this server did not write.
    public init?(_ text: some StringProtocol) {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, parts[0].allSatisfy({ $0.isASCII && $0.isNumber }), let tick = Int(parts[0]),
              let pushLog = PushLogCursor(parts[1]) else { return nil }
        self.init(tick: tick, pushLog: pushLog)
    }
}
