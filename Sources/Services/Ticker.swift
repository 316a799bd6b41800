import Catalog
import Foundation
import Game
import Logging
import Metrics
import PushPolicy
import ServiceLifecycle
import Store
import Vocabulary

/// Plays every running adventure's due ticks. One loop for all adventures, however
/// many and whatever their intervals: the store says which are due (most overdue
/// first), each due adventure plays exactly its next tick, and a batch of them is
/// stored in one commit. An adventure more than one tick behind (after a restart,
/// say) is due again at once and plays its ticks one after another, in order.
/// Between ticks the ticker holds each adventure as it committed it
/// (`RunningAdventures`), so a pass reads only what can change: commands and
/// activities.
///
/// A tick's game time is `startedAt + tick × tickInterval`, never the wall clock,
/// so a late tick plays exactly as an on-time one would and a replay matches it.
/// It falls due that far into its second (`TickSchedule`): adventures do not all
/// fall due at the same instant, and the ticker plays them as they come.
public struct Ticker: Service {
    public struct Settings: Sendable {
        /// Adventures played per commit.
        public var batchSize: Int
        /// Longest wait between looks at the store, so an adventure started while
        /// the loop sleeps is not kept waiting past its first tick by much.
        public var longestWait: Duration

        /// Slices a batch is computed in, side by side: its ticks are CPU work.
        public var concurrency: Int
        /// Seconds before an adventure whose tick failed is tried again, so that a
        /// batch of unplayable adventures cannot hold back the others.
        public var failureRetryDelay: Int
        /// After a pass that found less than a batch, how long from its start until
        /// the next: ticks fall due spread over each second (`TickSchedule`), and
        /// without a pause each would be a commit of its own, each waiting for the
        /// disk. A tick may wait this long before it is read.
        public var gatherInterval: Duration
        /// How often the node renews its leases and reads which adventures it
        /// holds, at most (each stored tick renews its own adventure's lease; this
        /// keeps the others', and learns what another node took). Every pass did,
        /// some ten a second under load, each reading every adventure held: a
        /// tenth of PostgreSQL's CPU. Keep it under a quarter of the lease, as
        /// `serve` does: a lease is renewed once past half its time.
        public var leaseUpkeep: Duration

        public init(batchSize: Int = 500, longestWait: Duration = .milliseconds(500),
                    concurrency: Int = ProcessInfo.processInfo.activeProcessorCount, failureRetryDelay: Int = 60,
                    gatherInterval: Duration = .milliseconds(100), leaseUpkeep: Duration = .seconds(1)) {
            self.batchSize = max(1, batchSize)
            self.longestWait = longestWait
            self.concurrency = max(1, concurrency)
            self.failureRetryDelay = max(1, failureRetryDelay)
            self.gatherInterval = max(.zero, gatherInterval)
            self.leaseUpkeep = max(.zero, leaseUpkeep)
        }
    }

    private let store: any TickStore
    private let content: LoadedContent
    private let policy: PushPolicyConfiguration
    /// The app's bundle id: the pushes' topics derive from it.
    private let bundleID: String
    /// Whether the walkie-talkie's members get a leave-channel push when an adventure ends.
    private let leaveChannelPushes: Bool
    private let settings: Settings
    private let now: @Sendable () -> Date
    private let clock: ServiceClock
    private let logger: Logger
    private let metrics: any MetricsFactory
    private let running = RunningAdventures()
    private let held: AdventuresHeld
    private let loop: LoopReporter

    public init(store: any TickStore, content: LoadedContent, policy: PushPolicyConfiguration, bundleID: String,
                leaveChannelPushes: Bool = true, settings: Settings = Settings(), now: @escaping @Sendable () -> Date = Date.init,
                clock: ServiceClock = .continuous, logger: Logger = Logger(label: "rangers.ticker"), metrics: any MetricsFactory = MetricsSystem.factory,
                held: AdventuresHeld = AdventuresHeld(), health: ServiceHealth = ServiceHealth()) {
        self.store = store
        self.content = content
        self.policy = policy
        self.bundleID = bundleID
        self.leaveChannelPushes = leaveChannelPushes
        self.settings = settings
        self.now = now
        self.clock = clock
        self.logger = logger
        self.metrics = metrics
        self.held = held
        loop = LoopReporter(loop: "ticker", health: health, logger: logger, metrics: metrics, now: now)
    }

    public func run() async throws {
        logger.info("ticker started")
        // A batch is stored as soon as it is computed, while the loop gathers and
        // computes the next one: the writer and the cores work at the same time,
        // and no computed tick waits for the next pass to be stored. One commit
        // at a time: the next waits for the one before.
        await withTaskGroup(of: Result<Int, any Error>.self) { commits in
            var storing: Set<AdventureID> = []
            var leasesKept: Duration?
            while !Task.isShuttingDownGracefully, !Task.isCancelled {
                let readAt: Date
                do {
                    let passStarted = clock.now
                    if leasesKept.map({ passStarted - $0 >= settings.leaseUpkeep }) ?? true {
                        try await renewLeases()
                        leasesKept = passStarted
                    }
                    let next = try await computeBatch(skipping: storing)
                    storing = []
                    if let previous = await commits.next() { _ = try previous.get() }
                    if !next.records.isEmpty {
                        storing = Set(next.records.map(\.adventure))
                        commits.addTask {
                            do { return .success(try await commit(next)) } catch { return .failure(error) }
                        }
                    }
                    loop.succeeded()
                    if next.records.count >= settings.batchSize { continue }
                    if !next.records.isEmpty {
                        try await cancelWhenGracefulShutdown { try await clock.sleep(until: passStarted + settings.gatherInterval) }
                        continue
                    }
                    readAt = next.at
                } catch is CancellationError {
                    break
                } catch {
                    // The store may be busy or briefly failing; the ticks stay due and
                    // are played on the next pass, in order.
                    loop.failed("cannot play the due ticks", error)
                    readAt = .distantFuture
                }
                let wait = await waitBeforeNextPass(after: readAt)
                do {
                    try await cancelWhenGracefulShutdown { try await clock.sleep(for: wait) }
                } catch {
                    break
                }
            }
            // The batch being stored is finished rather than computed again at the
            // next start; then other nodes may take this one's adventures at once.
            if let last = await commits.next(), case .failure(let error) = last, !(error is CancellationError) {
                logger.error("cannot store the last ticks computed", metadata: ["error": "\(error)"])
            }
        }
        // Bounded: a store that does not answer must not hold a stopping node.
        do {
            if try await clock.value(within: .seconds(2), of: { [store] in try await store.releaseLeases() }) == nil {
                logger.warning("the store did not answer; the leases run out by themselves")
            }
        } catch {
            logger.warning("cannot give up the leases; they run out by themselves", metadata: ["error": "\(error)"])
        }
        held.count = 0
        logger.info("ticker stopped")
    }

    /// Keeps this node's leases and forgets the adventures it no longer holds:
    /// another node took them (this one stalled past its lease) or they were
    /// given up for a node that joined.
    private func renewLeases() async throws {
        let count = running.keepOnly(try await store.renewLeases())
        held.count = count
        Gauge(label: "rangers_adventures_held", factory: metrics).record(count)
    }

    /// Plays the next tick of up to one batch of due adventures and stores them in
    /// one commit. Returns how many ticks were stored.
    @discardableResult
    public func playDueTicks() async throws -> Int { try await commit(computeBatch(skipping: [])) }

    /// Ticks computed and not stored yet.
    private struct Batch: Sendable {
        var records: [TickRecord]
        /// When the batch was read: what was due by then is in it.
        var at: Date
    }

    /// The next tick of up to one batch of due adventures, leaving out those whose
    /// ticks are being stored.
    private func computeBatch(skipping: Set<AdventureID>) async throws -> Batch {
        let at = now()
        let due = try await store.dueAdventures(
            at: at, limit: settings.batchSize, skipping: skipping, holding: running.holdings)
        return Batch(records: try await nextTicks(of: due), at: at)
    }

    /// Stores a computed batch in one commit. Returns how many ticks were stored.
    private func commit(_ batch: Batch?) async throws -> Int {
        guard let batch, !batch.records.isEmpty else { return 0 }
        let results = try await store.recordTicks(batch.records, at: batch.at)
        let committed = now()
        Metrics.Timer(label: "rangers_ticker_pass_duration_seconds", factory: metrics)
            .recordInterval(since: batch.at, until: committed)
        let lag = Metrics.Timer(label: "rangers_tick_lag_seconds", factory: metrics)
        var stored = 0
        for (record, result) in zip(batch.records, results) {
            switch result {
            case .success(let tick):
                stored += 1
                // How long after it fell due the tick was committed: the ticker's
                // one measure of keeping up.
                if let due = running.dueInstant(of: record.adventure, tick: record.tick) {
                    lag.recordInterval(since: due, until: committed)
                }
                running.committed(record, tick)
            case .failure(let refusal):
                // Another pass stored it first; the store refused it twice over. What
                // is held of it is no longer what is stored.
                running.forget(record.adventure)
                logger.warning("tick not stored", metadata: [
                    "adventure": "\(record.adventure)", "tick": "\(record.tick)", "reason": "\(refusal)",
                ])
            }
        }
        Counter(label: "rangers_ticks_total", factory: metrics).increment(by: stored)
        return stored
    }

    /// The next tick of each adventure, in the order given, computed in one slice
    /// per core. One adventure that cannot be played is logged and put off; the
    /// others go on.
    private func nextTicks(of due: [DueAdventure]) async throws -> [TickRecord] {
        let inputs = due.map { running.inputs(for: $0) }
        guard !inputs.isEmpty else { return [] }
        let slice = (inputs.count + settings.concurrency - 1) / settings.concurrency
        let outcomes = try await withThrowingTaskGroup(of: (Int, [Result<TickRecord?, any Error>]).self) { group in
            for start in stride(from: 0, to: inputs.count, by: slice) {
                group.addTask {
                    try Task.checkCancellation()
                    return (start, inputs[start..<min(start + slice, inputs.count)].map { input in
                        Result { try input.flatMap(nextTick(from:)) }
                    })
                }
            }
            var outcomes = [Result<TickRecord?, any Error>](repeating: .success(nil), count: inputs.count)
            for try await (start, slice) in group {
                outcomes.replaceSubrange(start..<start + slice.count, with: slice)
            }
            return outcomes
        }
        var records: [TickRecord] = []
        records.reserveCapacity(outcomes.count)
        for (adventure, outcome) in zip(due, outcomes) {
            switch outcome {
            case .success(let record?): records.append(record)
            case .success(nil): continue
            case .failure(let error): await putOff(adventure.id, after: error)
            }
        }
        return records
    }

    /// Said once per distinct error; the adventure is put off so the adventures
    /// behind it in the due queue go on.
    private func putOff(_ id: AdventureID, after error: any Error) async {
        Counter(label: "rangers_tick_failures_total", factory: metrics).increment()
        if running.isNewFailure(of: id, error: "\(error)") {
            logger.error("cannot play adventure's tick; trying again later", metadata: [
                "adventure": "\(id)", "error": "\(error)", "retryInSeconds": "\(settings.failureRetryDelay)",
            ])
        }
        let later = Int(now().timeIntervalSince1970) + settings.failureRetryDelay
        try? await store.postponeTicks(of: id, until: later)
    }

    /// The adventure's next tick with everything it decides, not yet stored; nil
    /// when it is no longer due (ended, or played meanwhile).
    func nextTick(from inputs: TickInputs) throws -> TickRecord? {
        let stored = inputs.adventure
        let id = stored.id
        guard stored.status == .running else { return nil }
        if stored.contentVersion != content.version, !running.hasPipeline(for: id) {
            logger.warning("adventure started with other content; it goes on with the content loaded now", metadata: [
                "adventure": "\(id)", "startedWith": "\(stored.contentVersion)", "loaded": "\(content.version)",
            ])
        }
        let pipeline = try running.pipeline(for: stored, content: content, configuration: policy)
        let outcome = try pipeline.tick(stored.state, commands: inputs.commands.map(\.command),
                                        recipients: inputs.recipients, ledgers: inputs.ledgers,
                                        followers: inputs.followers, followerLedgers: inputs.followerLedgers)
        let outbox = try OutboxMessage.forTick(outcome.decisions, bundleID: bundleID)
        var leaveChannelPush: (@Sendable (ChannelMember) -> OutboxMessage?)?
        if !outcome.state.isRunning, leaveChannelPushes {
            let bundleID = bundleID
            leaveChannelPush = { OutboxMessage.leaveChannel($0, bundleID: bundleID, reason: "the adventure ended") }
        }
        // Only the budgets whose high-priority pushes the tick changed are written back (`TickOutcome.spentLedgers`).
        return TickRecord(adventure: id, tick: outcome.state.tick, state: outcome.state, events: outcome.events,
                          appliedCommandIDs: inputs.commands.map(\.id), outbox: outbox, ledgers: outcome.spentLedgers,
                          channelLedgers: outcome.spentChannelLedgers, leaveChannelPush: leaveChannelPush)
    }

    /// Until the earliest next tick, but never longer than `longestWait`. A tick
    /// due by `readAt` that the pass did not store cannot be played now (its
    /// adventure's rules fail, the store refused it): no hurry to fail again.
    private func waitBeforeNextPass(after readAt: Date) async -> Duration {
        guard let next = try? await store.nextTickDue(), next > readAt else {
            return settings.longestWait
        }
        let seconds = next.timeIntervalSince(now())
        guard seconds > 0 else { return .zero }
        return min(settings.longestWait, .milliseconds(Int64((seconds * 1000).rounded(.up))))
    }
}

extension Metrics.Timer {
    /// Negative intervals (a clock set back) count as zero.
    func recordInterval(since start: Date, until end: Date) {
        recordNanoseconds(Int64(max(0, end.timeIntervalSince(start)) * 1_000_000_000))
    }
}
