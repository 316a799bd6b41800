import Foundation

/// A fixed window of attempts: `seconds` long, starting at a multiple of it.
/// Counting in fixed windows is one row per key, rewritten in place; a client
/// gets at most twice the limit across a window's edge, which is enough to stop
/// a flood and never locks out a client for long.
public struct AttemptWindow: Hashable, Sendable {
    public let seconds: Int

    public init(seconds: Int) { self.seconds = max(1, seconds) }

    /// The start of the window `now` falls in, unix seconds.
    public func start(of now: Date) -> Int {
        let second = Int(now.timeIntervalSince1970.rounded(.down))
        return second - ((second % seconds) + seconds) % seconds
    }

    /// Seconds until the window `now` falls in ends: when to try again.
    public func secondsLeft(at now: Date) -> Int {
        max(1, start(of: now) + seconds - Int(now.timeIntervalSince1970.rounded(.down)))
    }
}
