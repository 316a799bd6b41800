import Foundation
import Vocabulary

/// Where a reader of an adventure's push log has got to. Entries are read in the
/// order of (`batch`, `entry`): `entry` is the log entry's own number and `batch`
/// whatever the engine needs besides to hand out entries in the order they became
/// readable (0 where entries become readable in the order of their numbers). A
/// reader keeps the cursor a page gives and asks again from it; it never builds one.
/// As text (`"0.1534"`) it can travel in a URL or an event stream's id.
public struct PushLogCursor: Hashable, Sendable, Comparable, CustomStringConvertible {
    public let batch: UInt64
    public let entry: Int64

    public init(batch: UInt64, entry: Int64) {
        self.batch = batch
        self.entry = entry
    }

    /// Before the first entry.
    public static let start = PushLogCursor(batch: 0, entry: 0)

    public var description: String { "\(batch).\(entry)" }

    /// Reads the text `description` writes; nil for anything else.
    public init?(_ text: some StringProtocol) {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 2, parts.allSatisfy({ !$0.isEmpty && $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber) }),
              let batch = UInt64(parts[0]), let entry = Int64(parts[1]) else { return nil }
        self.init(batch: batch, entry: entry)
    }

    public static func < (left: PushLogCursor, right: PushLogCursor) -> Bool {
        (left.batch, left.entry) < (right.batch, right.entry)
    }
}

/// A part of an adventure's push log, read after a cursor, with what waits to be
/// sent again at the moment it was read.
public struct PushLogPage: Sendable {
    public struct Entry: Hashable, Sendable {
        /// Where a reader has got to once it has read this entry.
        public var cursor: PushLogCursor
        public var entry: PushLogEntry

        public init(cursor: PushLogCursor, entry: PushLogEntry) {
            self.cursor = cursor
            self.entry = entry
        }
    }

    /// Oldest first.
    public var entries: [Entry]
    /// Where to read on from: the last entry's cursor, or the one asked with when there was none.
    public var cursor: PushLogCursor
    /// The adventure's pushes back in the outbox to be sent again (APNs said to try
    /// later, or a send was interrupted), in the order they were decided.
    public var waitingForRetry: [OutboxEntry]

    public init(entries: [Entry], cursor: PushLogCursor, waitingForRetry: [OutboxEntry]) {
        self.entries = entries
        self.cursor = cursor
        self.waitingForRetry = waitingForRetry
    }
}
