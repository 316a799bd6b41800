/// A counting gate for requests in flight, with a FIFO of suspended callers.
/// Not thread-safe: `CurlMultiDriver` uses it under its lock.
struct SlotGate {
    let limit: Int
    private(set) var taken = 0
    private(set) var peakTaken = 0
    private var queue: [SlotWaiter] = []
    private var head = 0
    /// Waiters still waiting; withdrawn ones stay in `queue` until reached.
    private var waiting = 0

    init(limit: Int) { self.limit = limit }

    /// Takes a slot if one is free and nobody queued before.
    mutating func takeIfFree() -> Bool {
        guard taken < limit, waiting == 0 else { return false }
        taken += 1
        peakTaken = max(peakTaken, taken)
        return true
    }

    mutating func enqueue(_ waiter: SlotWaiter) {
        queue.append(waiter)
        waiting += 1
    }

    /// A cancelled waiter's continuation, if it was still waiting.
    mutating func withdraw(_ waiter: SlotWaiter) -> UnsafeContinuation<Void, any Error>? {
        guard let continuation = waiter.continuation else { return nil }
        waiter.continuation = nil
        waiting -= 1
        return continuation
    }

    /// Gives a slot back, or hands it straight to the first waiter, whose
    /// continuation is returned.
    mutating func release() -> UnsafeContinuation<Void, any Error>? {
        while head < queue.count {
            let waiter = queue[head]
            head += 1
            if let continuation = waiter.continuation {
                waiter.continuation = nil
                waiting -= 1
                compact()
                return continuation
            }
        }
        compact()
        taken -= 1
        return nil
    }

    mutating func drainWaiters() -> [UnsafeContinuation<Void, any Error>] {
        let continuations = queue[head...].compactMap { waiter in
            defer { waiter.continuation = nil }
            return waiter.continuation
        }
        queue.removeAll()
        head = 0
        waiting = 0
        return continuations
    }

    private mutating func compact() {
        if head == queue.count {
            queue.removeAll(keepingCapacity: true)
            head = 0
        } else if head > 1024, head * 2 > queue.count {
            queue.removeFirst(head)
            head = 0
        }
    }
}

/// One caller suspended in `CurlMultiDriver.acquireSlot`. `@unchecked Sendable`:
/// its fields are only touched under the driver's lock.
final class SlotWaiter: @unchecked Sendable {
    var continuation: UnsafeContinuation<Void, any Error>?
    var cancelled = false
}
