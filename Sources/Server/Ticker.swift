import Catalog
import Foundation
import Game
import Logging
import Metrics
import PushPolicy
import ServiceLifecycle
import Store

/// Plays every running adventure's due ticks. One loop for all adventures, however
/// many and whatever their intervals: the store says which are due (most overdue
/// first), each due adventure plays exactly its next tick, and a batch of them is
/// stored in one commit. An adventure more than one tick behind (after a restart,
/// say) is due again at once and plays its ticks one after another, in order.
///
/// A tick's game time is `startedAt + tick × tickInterval`, never the wall clock,
/// so a late tick plays exactly as an on-time one would and a replay matches it.
public struct Ticker: Service {
    public struct Settings: Sendable {
        /// Adventures played per commit.
        public var batchSize: Int
        /// Longest wait between looks at the store, so an adventure started while
        /// the loop sleeps is not kept waiting past its first tick by much.
        public var longestWait: Duration

        /// Adventures computed at once: their ticks are CPU work between two reads.
        public var concurrency: Int
        /// Seconds before an adventure whose tick failed is tried again, so that a
        /// batch of unplayable adventures cannot hold back the others.
        public var failureRetryDelay: Int

        public init(batchSize: Int = 500, longestWait: Duration = .milliseconds(500),
                    concurrency: Int = ProcessInfo.processInfo.activeProcessorCount, failureRetryDelay: Int = 60) {
            self.batchSize = max(1, batchSize)
            self.longestWait = longestWait
            self.concurrency = max(1, concurrency)
            self.failureRetryDelay = max(1, failureRetryDelay)
        }
    }

    private let store: RangersStore
    private let content: LoadedContent
    private let policy: PushPolicyConfiguration
    private let topic: String
    /// Where the leave-channel pushes go when an adventure ends; nil sends none.
    private let pushToTalkTopic: String?
    private let settings: Settings
    private let now: @Sendable () -> Date
    private let logger: Logger
    private let metrics: any MetricsFactory
    private let cache = AdventureCache()

    public init(store: RangersStore, content: LoadedContent, policy: PushPolicyConfiguration, topic: String,
                pushToTalkTopic: String? = nil, settings: Settings = Settings(), now: @escaping @Sendable () -> Date = Date.init,
                logger: Logger = Logger(label: "rangers.ticker"), metrics: any MetricsFactory = MetricsSystem.factory) {
        self.store = store
        self.content = content
        self.policy = policy
        self.topic = topic
        self.pushToTalkTopic = pushToTalkTopic
        self.settings = settings
        self.now = now
        self.logger = logger
        self.metrics = metrics
    }

    public func run() async throws {
        logger.info("ticker started")
        while !Task.isShuttingDownGracefully, !Task.isCancelled {
            let pass: (stored: Int, second: Int)
            do {
                pass = try await playDueBatch()
            } catch is CancellationError {
                break
            } catch {
                // The store may be busy or briefly failing; the ticks stay due and
                // are played on the next pass, in order.
                logger.error("ticker pass failed", metadata: ["error": "\(error)"])
                pass = (0, .max)
            }
            if pass.stored > 0 { continue }
            let wait = await waitBeforeNextPass(after: pass.second)
            do {
                try await cancelWhenGracefulShutdown { try await Task.sleep(for: wait) }
            } catch {
                break
            }
        }
        logger.info("ticker stopped")
    }

    /// Plays the next tick of up to one batch of due adventures and stores them in
    /// one commit. Returns how many ticks were stored.
    @discardableResult
    public func playDueTicks() async throws -> Int { try await playDueBatch().stored }

    /// Also returns the unix second the batch was due by.
    private func playDueBatch() async throws -> (stored: Int, second: Int) {
        let at = now()
        let second = Int(at.timeIntervalSince1970.rounded(.down))
        let due = try await store.adventuresDue(at: second, limit: settings.batchSize)
        let records = try await nextTicks(of: due.map(\.id))
        guard !records.isEmpty else { return (0, second) }
        let results = try await store.recordTicks(records, at: at)
        let committed = now()
        Metrics.Timer(label: "rangers_ticker_pass_duration_seconds", factory: metrics)
            .recordInterval(since: at, until: committed)
        let startedAt = Dictionary(due.map { ($0.id, ($0.startedAt, $0.setup.tickInterval)) }, uniquingKeysWith: { a, _ in a })
        let lag = Metrics.Timer(label: "rangers_tick_lag_seconds", factory: metrics)
        var stored = 0
        for (record, result) in zip(records, results) {
            switch result {
            case .success(let adventure):
                stored += 1
                // How long after its game time the tick was committed: the ticker's
                // one measure of keeping up.
                if let (start, interval) = startedAt[record.adventure] {
                    lag.recordInterval(since: Date(timeIntervalSince1970: TimeInterval(start + record.tick * interval)),
                                       until: committed)
                }
                if adventure.status != .running { cache.forget(record.adventure) }
            case .failure(let refusal):
                // Another pass stored it first; the store refused it twice over.
                logger.warning("tick not stored", metadata: [
                    "adventure": "\(record.adventure)", "tick": "\(record.tick)", "reason": "\(refusal)",
                ])
            }
        }
        Counter(label: "rangers_ticks_total", factory: metrics).increment(by: stored)
        return (stored, second)
    }

    /// The next tick of each adventure, in the order given, computed a few at a
    /// time so every core plays its share. One adventure that cannot be played is
    /// logged and left out; the others go on.
    private func nextTicks(of ids: [AdventureID]) async throws -> [TickRecord] {
        guard !ids.isEmpty else { return [] }
        // One read for the batch: a read per adventure cost more than its tick.
        let inputs = try await store.tickInputs(of: ids)
        let width = min(settings.concurrency, ids.count)
        var records = [TickRecord?](repeating: nil, count: ids.count)
        try await withThrowingTaskGroup(of: (Int, TickRecord?).self) { group in
            var next = 0
            func addNext() {
                let index = next, id = ids[index]
                next += 1
                group.addTask {
                    do {
                        return (index, try nextTick(from: inputs[index].get()))
                    } catch is CancellationError {
                        throw CancellationError()
                    } catch {
                        // Said once per distinct error; the adventure is put off so the
                        // adventures behind it in the due queue go on.
                        Counter(label: "rangers_tick_failures_total", factory: metrics).increment()
                        if cache.isNewFailure(of: id, error: "\(error)") {
                            logger.error("cannot play adventure's tick; trying again later", metadata: [
                                "adventure": "\(id)", "error": "\(error)", "retryInSeconds": "\(settings.failureRetryDelay)",
                            ])
                        }
                        let later = Int(now().timeIntervalSince1970) + settings.failureRetryDelay
                        try? await store.postponeTicks(of: id, until: later)
                        return (index, nil)
                    }
                }
            }
            while next < width { addNext() }
            while let (index, record) = try await group.next() {
                records[index] = record
                if next < ids.count { addNext() }
            }
        }
        return records.compactMap { $0 }
    }

    /// The adventure's next tick with everything it decides, not yet stored; nil
    /// when it is no longer due (ended, or played meanwhile).
    func nextTick(from inputs: TickInputs) throws -> TickRecord? {
        let stored = inputs.adventure
        let id = stored.id
        guard stored.status == .running else { return nil }
        if stored.contentVersion != content.version, !cache.hasRules(for: id) {
            logger.warning("adventure started with other content; it goes on with the content loaded now", metadata: [
                "adventure": "\(id)", "startedWith": "\(stored.contentVersion)", "loaded": "\(content.version)",
            ])
        }
        let rules = try cache.rules(for: stored, content: content, configuration: policy)
        let (state, events) = rules.adventure.tick(stored.state, commands: inputs.commands.map(\.command))
        var ledgers = inputs.ledgers
        let decisions = try rules.pushes(after: events, state: state, recipients: inputs.recipients, ledgers: &ledgers)
        let outbox = try decisions.map { decision -> OutboxMessage in
            guard case .liveActivity(let activity) = decision.target else {
                throw TickerError.unexpectedTarget("\(decision.target)")
            }
            return try OutboxMessage(decision, target: .liveActivity(ActivityID(activity)), topic: topic)
        }
        var leaveChannelPush: (@Sendable (ChannelMember) -> OutboxMessage?)?
        if !state.isRunning, let channelTopic = pushToTalkTopic {
            leaveChannelPush = { OutboxMessage.leaveChannel($0, topic: channelTopic, reason: "the adventure ended") }
        }
        return TickRecord(adventure: id, tick: state.tick, state: state, events: events,
                          appliedCommandIDs: inputs.commands.map(\.id), outbox: outbox, ledgers: ledgers,
                          leaveChannelPush: leaveChannelPush)
    }

    /// Until the earliest next tick, but never longer than `longestWait`. A tick
    /// due by `second` that the pass did not store cannot be played now (its
    /// adventure's rules fail, the store refused it): no hurry to fail again.
    private func waitBeforeNextPass(after second: Int) async -> Duration {
        guard let next = try? await store.adventuresDue(at: .max, limit: 1).first?.nextTickAt, next > second else {
            return settings.longestWait
        }
        let seconds = TimeInterval(next) - now().timeIntervalSince1970
        guard seconds > 0 else { return .zero }
        return min(settings.longestWait, .milliseconds(Int64((seconds * 1000).rounded(.up))))
    }
}

enum TickerError: Error, CustomStringConvertible {
    case unexpectedTarget(String)

    var description: String {
        switch self {
        case .unexpectedTarget(let target): "the policy chose \(target) after a tick; only Live Activities are updated by ticks"
        }
    }
}

/// Each running adventure's resolved rules and push policy, made once from its
/// stored setup rather than on every tick, and the last failure reported for it.
/// A lock rather than `Mutex`: the package still targets macOS 14.
final class AdventureCache: @unchecked Sendable {
    private let lock = NSLock()
    private var policies: [AdventureID: PushPolicy] = [:]
    private var failures: [AdventureID: String] = [:]

    func rules(for adventure: StoredAdventure, content: LoadedContent,
               configuration: PushPolicyConfiguration) throws -> PushPolicy {
        if let cached = lock.withLock({ policies[adventure.id] }) { return cached }
        let game = try Adventure(setup: adventure.setup, content: content.game)
        let policy = PushPolicy(configuration: configuration, adventureID: adventure.id.rawValue, adventure: game,
                                content: content.game, strings: content.strings, startedAt: adventure.startedAt)
        lock.withLock { policies[adventure.id] = policy }
        return policy
    }

    func hasRules(for adventure: AdventureID) -> Bool {
        lock.withLock { policies[adventure] != nil }
    }

    func forget(_ adventure: AdventureID) {
        lock.withLock {
            policies[adventure] = nil
            failures[adventure] = nil
        }
    }

    /// True the first time this error is seen for the adventure.
    func isNewFailure(of adventure: AdventureID, error: String) -> Bool {
        lock.withLock {
            guard failures[adventure] != error else { return false }
            failures[adventure] = error
            return true
        }
    }
}

extension Metrics.Timer {
    /// Negative intervals (a clock set back) count as zero.
    func recordInterval(since start: Date, until end: Date) {
        recordNanoseconds(Int64(max(0, end.timeIntervalSince(start)) * 1_000_000_000))
    }
}
