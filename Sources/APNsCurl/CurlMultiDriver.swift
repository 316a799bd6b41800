import APNs
import CCurl
import CCurlShim
import Foundation
import NIOConcurrencyHelpers

/// Runs one curl multi handle on a thread of its own. Callers check out a
/// transfer, prepare it and submit it; the driver attaches it, drives libcurl
/// (`curl_multi_poll`, woken by `curl_multi_wakeup` when work arrives) and hands
/// the transfer back when libcurl is done. Everything else (parsing the answer,
/// resetting the transfer) happens on the caller's task: this thread is the one
/// that limits throughput, so it only does what must happen on it.
///
/// It also holds the in-flight limit: checking out a transfer takes a slot, and
/// returning it gives the slot back (or straight to the next waiter).
///
/// `@unchecked Sendable`: every field under "lock" is only touched with `lock`
/// held; the multi handle and the fields under "driver thread" only on that thread.
final class CurlMultiDriver: @unchecked Sendable {
    private let configuration: CurlTransportConfiguration
    private let multi: CurlMultiHandle
    private let lock = NIOLock()

    // lock
    private var pendingAdds: [CurlTransfer] = []
    private var pendingCancels: [(transfer: CurlTransfer, generation: UInt64)] = []
    private var idleTransfers: [CurlTransfer] = []
    private var slots: SlotGate
    private var connectionsOpened = 0
    private var attachedSnapshot = 0
    private var peakAttached = 0
    /// The driver sits (or is about to sit) in curl_multi_poll: new work must wake it.
    private var driverIsPolling = false
    private var wakeupSent = false
    private var stopping = false
    private var stopped = false
    private var stopWaiters: [CheckedContinuation<Void, Never>] = []
    /// Jobs of tasks that prefer this thread as their executor (see `CurlTransportExecutor`).
    private var jobs: [UnownedJob] = []
    /// Weak: the executor holds the driver, and tasks hold neither.
    private weak var executor: CurlTransportExecutor?

    // driver thread
    private var attached = 0
    private var mostAttached = 0
    private var ended: [(transfer: CurlTransfer, end: CurlTransfer.End)] = []

    init(configuration: CurlTransportConfiguration) throws(CurlTransportSetupError) {
        self.configuration = configuration
        slots = SlotGate(limit: configuration.maximumRequestsInFlight)
        multi = try CurlMultiHandle()
        try multi.set(CURLMOPT_PIPELINING, RANGERS_CURLPIPE_MULTIPLEX)
        try multi.set(CURLMOPT_MAX_HOST_CONNECTIONS, configuration.maximumConnectionsPerHost)
        try multi.set(CURLMOPT_MAX_CONCURRENT_STREAMS, configuration.maximumConcurrentStreamsPerConnection)
        // Room to keep every allowed connection open while idle, for two hosts.
        try multi.set(CURLMOPT_MAXCONNECTS, configuration.maximumConnectionsPerHost * 2)
        let thread = Thread { [self] in
            // Named for `top -H` and profilers (at most 15 characters on Linux), in
            // the kernel: Foundation's `Thread.current.name` may still report the
            // name the thread inherited from its creator (a dispatch worker's)
            // when the thread reads it right after starting.
            rangers_name_current_thread("apns-curl-multi")
            run()
        }
        thread.start()
    }

    struct Diagnostics {
        var connectionsOpened: Int
        var requestsInFlight: Int
        var peakRequestsInFlight: Int
        var attached: Int
        var peakAttached: Int
    }

    var diagnostics: Diagnostics {
        lock.withLock {
            Diagnostics(connectionsOpened: connectionsOpened, requestsInFlight: slots.taken,
                        peakRequestsInFlight: slots.peakTaken, attached: attachedSnapshot, peakAttached: peakAttached)
        }
    }

    // MARK: callers

    /// A transfer to prepare, pooled or new, and the generation that names this use
    /// of it. Suspends while `maximumRequestsInFlight` transfers are out.
    func checkOut() async throws -> (transfer: CurlTransfer, generation: UInt64) {
        enum Immediate { case pooled(CurlTransfer, UInt64), create, wait, shutDown }
        let immediate: Immediate = lock.withLock {
            if stopping { return .shutDown }
            guard slots.takeIfFree() else { return .wait }
            return takeIdleLocked().map { .pooled($0.transfer, $0.generation) } ?? .create
        }
        switch immediate {
        case .pooled(let transfer, let generation): return (transfer, generation)
        case .create: return try newTransfer()
        case .shutDown: throw APNsTransportError.shutDown
        case .wait: break
        }
        try await waitForSlot()
        if let pooled = lock.withLock({ takeIdleLocked() }) { return pooled }
        return try newTransfer()
    }

    private func takeIdleLocked() -> (transfer: CurlTransfer, generation: UInt64)? {
        guard let transfer = idleTransfers.popLast() else { return nil }
        transfer.phase = .checkedOut
        return (transfer, transfer.generation)
    }

    private func newTransfer() throws -> (transfer: CurlTransfer, generation: UInt64) {
        do {
            let transfer = try CurlTransfer(configuration: configuration)
            transfer.phase = .checkedOut  // not shared yet
            return (transfer, transfer.generation)
        } catch {
            let next = lock.withLock { slots.release() }
            next?.resume()
            throw APNsTransportError.connectionLost(error.description)
        }
    }

    private func waitForSlot() async throws {
        let waiter = SlotWaiter()
        try await withTaskCancellationHandler {
            try await withUnsafeThrowingContinuation { (continuation: UnsafeContinuation<Void, any Error>) in
                let verdict: Result<Bool, any Error> = lock.withLock {
                    if waiter.cancelled { return .failure(CancellationError()) }
                    if stopping { return .failure(APNsTransportError.shutDown) }
                    if slots.takeIfFree() { return .success(true) }
                    waiter.continuation = continuation
                    slots.enqueue(waiter)
                    return .success(false)
                }
                switch verdict {
                case .success(true): continuation.resume()
                case .success(false): break
                case .failure(let error): continuation.resume(throwing: error)
                }
            }
        } onCancel: {
            let continuation: UnsafeContinuation<Void, any Error>? = lock.withLock {
                waiter.cancelled = true
                return slots.withdraw(waiter)
            }
            continuation?.resume(throwing: CancellationError())
        }
    }

    /// Hands a prepared transfer to libcurl; resumes with how it ended.
    func submit(_ transfer: CurlTransfer, continuation: UnsafeContinuation<CurlTransfer.End, Never>) {
        let cancelledAlready: Bool = lock.withLock {
            if transfer.cancelRequested { return true }
            transfer.continuation = continuation
            transfer.phase = .queued
            pendingAdds.append(transfer)
            wakeDriverLocked()
            return false
        }
        if cancelledAlready { continuation.resume(returning: .cancelled) }
    }

    func cancel(_ transfer: CurlTransfer, generation: UInt64) {
        lock.withLock {
            guard transfer.generation == generation, !transfer.cancelRequested else { return }
            switch transfer.phase {
            case .idle, .ended: return
            case .checkedOut: transfer.cancelRequested = true
            case .queued, .running:
                transfer.cancelRequested = true
                pendingCancels.append((transfer, generation))
                wakeDriverLocked()
            }
        }
    }

    /// Back to the pool once its caller is done with it; frees its slot.
    func checkIn(_ transfer: CurlTransfer, connectionsOpened opened: Int) {
        transfer.reset()
        let next: UnsafeContinuation<Void, any Error>? = lock.withLock {
            connectionsOpened += opened
            transfer.phase = .idle
            transfer.generation &+= 1
            transfer.cancelRequested = false
            idleTransfers.append(transfer)
            let next = slots.release()
            if stopping, slots.taken == 0 { wakeDriverLocked() }
            return next
        }
        next?.resume()
    }

    /// Refuses new work, fails waiting callers, lets in-flight transfers finish,
    /// then stops the thread and closes the connections.
    func shutdown() async {
        requestStop()
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let done: Bool = lock.withLock {
                if stopped { return true }
                stopWaiters.append(continuation)
                return false
            }
            if done { continuation.resume() }
        }
    }

    func requestStop() {
        let refused: [UnsafeContinuation<Void, any Error>] = lock.withLock {
            stopping = true
            wakeDriverLocked()
            return slots.drainWaiters()
        }
        for continuation in refused { continuation.resume(throwing: APNsTransportError.shutDown) }
    }

    func runJobs(as executor: CurlTransportExecutor) {
        lock.withLock { self.executor = executor }
    }

    /// Runs `job` on the driver thread, or on the global executor once the
    /// driver has stopped (a task must never be left without a thread).
    func enqueue(_ job: UnownedJob) {
        let accepted: Bool = lock.withLock {
            guard !stopped else { return false }
            jobs.append(job)
            wakeDriverLocked()
            return true
        }
        if !accepted { globalConcurrentExecutor.enqueue(job) }
    }

    private func wakeDriverLocked() {
        // One wakeup per poll is enough: the driver takes all pending work at once.
        guard driverIsPolling, !wakeupSent, !stopped, let raw = multi.raw else { return }
        wakeupSent = true
        curl_multi_wakeup(raw)
    }

    // MARK: driver thread

    private func run() {
        var runnable: [UnownedJob] = []
        while true {
            // Callers' work first: what it submits is attached in this same turn.
            let executor = lock.withLock {
                swap(&runnable, &jobs)
                return self.executor
            }
            if let executor {
                for job in runnable { job.runSynchronously(on: executor.asUnownedTaskExecutor()) }
            } else {
                for job in runnable { globalConcurrentExecutor.enqueue(job) }
            }
            runnable.removeAll(keepingCapacity: true)

            let (toAttach, toRemove) = takeWork()
            for transfer in toAttach {
                let code = curl_multi_add_handle(multi.raw, transfer.easy.raw)
                if code == CURLM_OK {
                    attached += 1
                } else {
                    let detail = "curl_multi_add_handle: \(String(cString: curl_multi_strerror(code)))"
                    ended.append((transfer, .refused(.connectionLost(detail))))
                }
            }
            mostAttached = max(mostAttached, attached)
            for transfer in toRemove { detach(transfer, .cancelled) }

            var stillRunning: Int32 = 0
            _ = curl_multi_perform(multi.raw, &stillRunning)
            var easy: UnsafeMutableRawPointer?
            var code = CURLE_OK
            while rangers_curl_multi_next_done(multi.raw, &easy, &code) {
                var userdata: UnsafeMutableRawPointer?
                guard let easy, rangers_curl_easy_getinfo_private(easy, &userdata) == CURLE_OK, let userdata else { continue }
                detach(Unmanaged<CurlTransfer>.fromOpaque(userdata).takeUnretainedValue(), .completed(code))
            }

            handBack()
            let next: NextStep = lock.withLock {
                attachedSnapshot = attached
                peakAttached = mostAttached
                if stopping, slots.taken == 0, jobs.isEmpty {
                    stopped = true
                    return .stop
                }
                guard pendingAdds.isEmpty, pendingCancels.isEmpty, jobs.isEmpty else { return .work }
                driverIsPolling = true
                return .poll
            }
            switch next {
            case .work: continue
            case .poll: _ = curl_multi_poll(multi.raw, nil, 0, 1000, nil)
            case .stop:
                multi.close()
                // No job is left: the driver stops only with none queued, and
                // `enqueue` sends later ones to the global executor.
                let (idle, waiters) = lock.withLock {
                    defer { idleTransfers = []; stopWaiters = [] }
                    return (idleTransfers, stopWaiters)
                }
                _ = idle  // easy handles are freed here, after the multi handle let go of them
                for waiter in waiters { waiter.resume() }
                return
            }
        }
    }

    private enum NextStep { case work, poll, stop }

    private func takeWork() -> (attach: [CurlTransfer], remove: [CurlTransfer]) {
        lock.withLock {
            driverIsPolling = false
            wakeupSent = false
            var attach: [CurlTransfer] = []
            for transfer in pendingAdds {
                if transfer.cancelRequested {
                    ended.append((transfer, .cancelled))
                } else {
                    transfer.phase = .running
                    attach.append(transfer)
                }
            }
            pendingAdds.removeAll(keepingCapacity: true)
            // A cancellation may arrive after its transfer ended, or even after the
            // transfer went on to a later request: only a match on both counts.
            let remove = pendingCancels.compactMap { entry in
                entry.transfer.generation == entry.generation && entry.transfer.phase == .running ? entry.transfer : nil
            }
            pendingCancels.removeAll(keepingCapacity: true)
            return (attach, remove)
        }
    }

    private func detach(_ transfer: CurlTransfer, _ end: CurlTransfer.End) {
        curl_multi_remove_handle(multi.raw, transfer.easy.raw)
        attached -= 1
        ended.append((transfer, end))
    }

    /// Resumes the callers of every transfer that ended this turn, under one lock.
    private func handBack() {
        guard !ended.isEmpty else { return }
        let continuations: [(UnsafeContinuation<CurlTransfer.End, Never>, CurlTransfer.End)] = lock.withLock {
            ended.compactMap { transfer, end in
                transfer.phase = .ended
                defer { transfer.continuation = nil }
                return transfer.continuation.map { ($0, end) }
            }
        }
        ended.removeAll(keepingCapacity: true)
        for (continuation, end) in continuations { continuation.resume(returning: end) }
    }
}
