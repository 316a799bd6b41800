import Foundation
import Vocabulary

/// When an adventure's ticks fall due. Tick `n` belongs to the whole second
/// `startedAt + n × tickInterval` (its game time: the pushes' timestamps and the
/// replay count in it), and falls due `phase` milliseconds into that second. The
/// phase is drawn from the adventure's id when it starts, so adventures started
/// in the same second (or all at whole seconds, as `startedAt` counts) fall due
/// spread over each second instead of all at its first instant: the ticker plays
/// them as they come, not in one wave that the last of them waits through.
public enum TickSchedule {
    /// Milliseconds into its second at which each of the adventure's ticks falls
    /// due: 0..<1000, the same for the same id on every node and every run
    /// (FNV-1a of the id's UTF-8, not Swift's per-process seeded `Hasher`).
    public static func phase(of adventure: AdventureID) -> Int {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in adventure.rawValue.utf8 {
            hash ^= UInt64(byte)
            hash &*= 0x0000_0100_0000_01b3
        }
        return Int(hash % 1000)
    }

    /// The instant a tick of `second` with this phase falls due.
    public static func dueInstant(second: Int, phase: Int) -> Date {
        Date(timeIntervalSince1970: TimeInterval(second) + TimeInterval(phase) / 1000)
    }

    /// `now` as the whole second and the milliseconds into it that the due
    /// queries compare with (`nextTickAt`, `tickPhase`); to the nearest
    /// millisecond, so that a `dueInstant` comes back as the second and phase it was made of.
    public static func secondAndPhase(of now: Date) -> (second: Int, phase: Int) {
        let milliseconds = Int((now.timeIntervalSince1970 * 1000).rounded())
        let second = Int((Double(milliseconds) / 1000).rounded(.down))
        return (second, milliseconds - second * 1000)
    }
}
