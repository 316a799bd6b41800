import Foundation

/// A value shared between event loops and callers' tasks. A plain lock rather than
/// `Synchronization.Mutex`, which would raise the package's macOS floor to 15.
final class LockedValue<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) { self.value = value }

    func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
