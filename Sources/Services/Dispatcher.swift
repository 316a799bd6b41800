import APNs
import Foundation
import Logging
import Metrics
import ServiceLifecycle
import Store
import Vocabulary

/// Sends the outbox through APNs, at most `maximumInFlight` pushes at a time, and
/// records every answer with the store: delivered, token no longer valid (the
/// store invalidates it at once), retry later (rescheduled with backoff), or
/// rejected.
///
/// Delivery is at least once: a row is marked `sending` by this node before it
/// goes out, and whatever a stopped node left `sending` is queued again (at start
/// and every `abandonedClaimCheck`). On graceful shutdown it keeps sending until
/// the outbox is empty or `drainTime` has passed, then stops, whether or not the
/// store answers; where other nodes share the outbox, it only finishes the
/// pushes it claimed and leaves the rest to them. Pushes it still held then
/// (claimed and unanswered, or answered and not recorded) stay claimed by this
/// node and go back to pending once its claims expire, as a killed node's do;
/// `run()` then throws `PushesLeftUnsent`, so the process exits saying how many.
///
/// An idle dispatcher looks at the outbox every `idleWait` (a short poll) rather
/// than waiting for PostgreSQL's `LISTEN/NOTIFY`: a push queued by another node
/// waits at most that long (250 ms, a quarter of the shortest tick), the look is
/// one indexed read, and there is no dedicated connection to keep subscribed
/// through reconnects and failovers.
public struct Dispatcher: Service {
    public struct Settings: Sendable {
        /// Pushes claimed and not yet answered. Each batch of answers and claims is
        /// one write, which under load waits behind the ticker's commits: a wider
        /// window sends more per wait. The transport sends its own share at once
        /// and holds the rest.
        public var maximumInFlight: Int
        /// Longest wait between looks at the outbox when it is idle.
        public var idleWait: Duration
        /// How long a graceful shutdown may keep sending before it gives up.
        public var drainTime: Duration
        /// Claims of one push (each with the client's own quick retries) before it is
        /// given up as rejected.
        public var maximumClaims: Int
        /// Wait before a push that may succeed later is claimed again: doubled per
        /// claim up to `longestRetryWait`.
        public var firstRetryWait: TimeInterval
        public var longestRetryWait: TimeInterval
        /// How often to look for pushes a stopped dispatcher left claimed: another
        /// node on a shared store may stop at any moment, not only before this start.
        public var abandonedClaimCheck: Duration

        public init(maximumInFlight: Int = 512, idleWait: Duration = .milliseconds(250), drainTime: Duration = .seconds(20),
                    maximumClaims: Int = 8, firstRetryWait: TimeInterval = 1, longestRetryWait: TimeInterval = 300,
                    abandonedClaimCheck: Duration = .seconds(5)) {
            self.maximumInFlight = max(1, maximumInFlight)
            self.idleWait = idleWait
            self.drainTime = drainTime
            self.maximumClaims = max(1, maximumClaims)
            self.firstRetryWait = firstRetryWait
            self.longestRetryWait = longestRetryWait
            self.abandonedClaimCheck = abandonedClaimCheck
        }
    }

    private let store: any OutboxStore & NodeStore
    private let client: any PushSender
    /// Where broadcasts to followers' channels go; without one they are refused.
    private let channels: FollowerChannels?
    private let settings: Settings
    private let now: @Sendable () -> Date
    private let clock: ServiceClock
    private let logger: Logger
    private let metrics: any MetricsFactory
    private let health: DeliveryHealth
    private let loop: LoopReporter
    /// From the tick (or request) that queued a push to APNs accepting it: the
    /// dispatcher's one measure of keeping up, as the tick lag is the ticker's.
    private let pushLag: Metrics.Timer

    public init(store: any OutboxStore & NodeStore, client: any PushSender, channels: FollowerChannels? = nil, settings: Settings = Settings(),
                now: @escaping @Sendable () -> Date = Date.init, clock: ServiceClock = .continuous, logger: Logger = Logger(label: "rangers.dispatcher"),
                metrics: any MetricsFactory = MetricsSystem.factory, health: DeliveryHealth = DeliveryHealth(),
                serviceHealth: ServiceHealth = ServiceHealth()) {
        self.store = store
        self.client = client
        self.channels = channels
        self.settings = settings
        self.now = now
        self.clock = clock
        self.logger = logger
        self.metrics = metrics
        self.health = health
        loop = LoopReporter(loop: "dispatcher", health: serviceHealth, logger: logger, metrics: metrics, now: now)
        pushLag = Metrics.Timer(label: "rangers_push_lag_seconds", factory: metrics)
    }

    private enum Event: Sendable {
        case answered(PushResult?)
        case timer
    }

    public func run() async throws {
        do { try await recoverInterruptedSends() } catch { loop.failed("cannot recover abandoned pushes", error) }
        var lastRecovery = clock.now

        let left = try await withThrowingTaskGroup(of: Event.self) { group in
            var inFlight = 0
            var timerRunning = false
            var answers: [PushResult] = []
            var drainDeadline: Duration?
            // Draining where other nodes share the outbox: they send what is
            // pending, so this one only finishes what it has claimed.
            var leavingTheRestToOthers = false
            var storeFailed = false
            // Each write waits its turn behind the ticker's commits, so answers are
            // recorded and the next pushes claimed together, in batches: when all
            // sent pushes are answered, when half the window is free again with a
            // quarter of it answered, when a token turned out dead (recorded before
            // anything more is claimed for it), and on each timer.
            var writeDue = true

            while true {
                if drainDeadline == nil, Task.isShuttingDownGracefully {
                    drainDeadline = clock.now + settings.drainTime
                    health.stopping(at: now())
                    let liveNodes = try? await clock.value(within: .seconds(2)) { try await store.liveNodes() }
                    leavingTheRestToOthers = (liveNodes ?? 1) > 1
                    logger.info(leavingTheRestToOthers ? "finishing the pushes this node claimed before stopping"
                                                       : "draining the outbox before stopping")
                }
                if let deadline = drainDeadline {
                    if clock.now >= deadline {
                        // Unanswered sends stay `sending`, claimed by this node, until its claims expire.
                        group.cancelAll()
                        break
                    }
                    if inFlight == 0, answers.isEmpty {
                        if leavingTheRestToOthers { break }
                        let pending = try? await clock.value(within: deadline - clock.now) { try await store.pendingOutboxCount() }
                        if pending == 0 { break }
                    }
                }
                if Task.isCancelled { group.cancelAll(); break }

                let halfFree = inFlight <= settings.maximumInFlight / 2 && answers.count >= settings.maximumInFlight / 4
                if writeDue || inFlight == 0 || halfFree {
                    writeDue = false
                    storeFailed = false
                    do {
                        let limit = leavingTheRestToOthers ? 0 : settings.maximumInFlight - inFlight
                        let (refusals, claimed) = try await store.recordAndClaim(answers, limit: limit, now: now())
                        loop.succeeded()
                        report(refusals, of: answers)
                        answers.removeAll(keepingCapacity: true)
                        for push in claimed {
                            // On the transport's own thread where it has one: a send is
                            // mostly handing the push to libcurl and reading its answer.
                            group.addTask(executorPreference: client.preferredExecutor) { .answered(await self.deliver(push)) }
                        }
                        inFlight += claimed.count
                        Gauge(label: "rangers_dispatcher_in_flight", factory: metrics).record(inFlight)
                    } catch {
                        storeFailed = true
                        // A busy or failing store: the answers are kept, nothing new is
                        // claimed, and the timer brings the next try.
                        loop.failed("cannot record answers and claim pushes", error, metadata: ["answers": "\(answers.count)"])
                    }
                }
                if !timerRunning {
                    timerRunning = true
                    // After a store failure, the full wait: retrying at once would only fail again.
                    let wait = inFlight == 0 && !storeFailed
                        ? ((try? await idleWait()) ?? settings.idleWait) : settings.idleWait
                    group.addTask {
                        try? await clock.sleep(for: wait)
                        return .timer
                    }
                }
                guard let event = try await group.next() else { continue }
                switch event {
                case .timer:
                    timerRunning = false
                    writeDue = true
                    if drainDeadline == nil, clock.now - lastRecovery >= settings.abandonedClaimCheck {
                        lastRecovery = clock.now
                        do { try await recoverInterruptedSends() } catch { loop.failed("cannot recover abandoned pushes", error) }
                    }
                case .answered(let result):
                    inFlight -= 1
                    guard let result else { continue }
                    count(result)
                    answers.append(result)
                    if case .tokenInvalid = result.outcome { writeDue = true }
                }
            }
            if !answers.isEmpty {
                // Within what is left of the drain, and a moment more: the answers are worth the wait.
                let limit = max(.seconds(1), (drainDeadline ?? clock.now) - clock.now)
                let recorded = try? await clock.value(within: limit) { [answers, now] in try await store.record(answers, at: now()) }
                if let refusals = recorded {
                    report(refusals, of: answers)
                    answers.removeAll()
                }
            }
            return inFlight + answers.count
        }
        guard left == 0 else {
            logger.warning("stopped with pushes not sent or not recorded; they are sent again once this node's claims expire",
                           metadata: ["count": "\(left)"])
            throw PushesLeftUnsent(count: left)
        }
        logger.info("dispatcher stopped")
    }

    /// Puts back the pushes a stopped dispatcher (this process before a restart,
    /// or another node) left claimed, so that they are sent again.
    private func recoverInterruptedSends() async throws {
        let recovered = try await store.recoverInterruptedSends()
        if recovered > 0 { logger.notice("pushes interrupted by a stop are sent again", metadata: ["count": "\(recovered)"]) }
    }

    private func report(_ refusals: [StoreError?], of answers: [PushResult]) {
        for (answer, refusal) in zip(answers, refusals) {
            if let refusal {
                logger.warning("answer not recorded", metadata: ["outbox": "\(answer.push.id)", "reason": "\(refusal)"])
            }
        }
    }

    /// Answers by outcome and priority, and how long each delivered push took from
    /// the decision to APNs' acceptance; APNs' own figures are the client's.
    private func count(_ result: PushResult) {
        let answeredAt = now()
        health.record(result.outcome, at: answeredAt)
        if case .delivered = result.outcome {
            pushLag.recordInterval(since: result.push.queuedAt, until: answeredAt)
        }
        let outcome = switch result.outcome {
        case .delivered: "delivered"
        case .tokenInvalid: "tokenInvalid"
        case .channelGone: "channelGone"
        case .retryLater: "retryLater"
        case .rejected: "rejected"
        }
        Counter(label: "rangers_dispatcher_pushes_total", dimensions: [
            ("outcome", outcome), ("push_type", result.push.message.pushType.rawValue),
            ("priority", String(result.push.message.priority.rawValue)),
        ], factory: metrics).increment()
    }

    /// Until the earliest pending push is due, within `idleWait`.
    private func idleWait() async throws -> Duration {
        guard let next = try await store.nextOutboxAttemptAt() else { return settings.idleWait }
        let seconds = next.timeIntervalSince(now())
        guard seconds > 0 else { return .milliseconds(1) }
        return min(settings.idleWait, .milliseconds(Int64((seconds * 1000).rounded(.up))))
    }

    /// Sends one claimed push; nil when the send was cancelled, leaving the row
    /// `sending` for the next start to send again.
    func deliver(_ push: ClaimedPush) async -> PushResult? {
        switch push.destination {
        case .device(let token): await deliver(push, to: token)
        case .channel(let channel): await broadcast(push, to: channel)
        }
    }

    private func deliver(_ push: ClaimedPush, to token: PushToken) async -> PushResult? {
        let message = push.message
        let request = APNsRequest(deviceToken: token.hex, pushType: message.pushType, topic: message.topic,
                                  priority: message.priority.rawValue, expiration: message.expiration,
                                  payload: message.payload)
        let delivery: APNsDelivery
        do {
            delivery = try await client.send(request)
        } catch let error as APNsRequestError {
            return PushResult(push, .rejected(status: nil, reason: "not sent: \(error)"))
        } catch {
            return nil
        }
        // Earlier claims each made at least one attempt.
        let attempts = push.attempts - 1 + delivery.attempts
        let status = delivery.response?.status
        let apnsID = delivery.response?.apnsID
        switch delivery.outcome {
        case .delivered(let id):
            return PushResult(push, .delivered(apnsID: id ?? apnsID, status: status ?? 200, attempts: attempts))
        case .tokenNoLongerValid(let reason, let since):
            return PushResult(push, .tokenInvalid(status: status ?? 410, reason: reason.description, since: since,
                                                  apnsID: apnsID, attempts: attempts))
        case .rejected(let reason):
            return PushResult(push, .rejected(status: status, reason: reason.description, apnsID: apnsID,
                                              attempts: attempts))
        case .retryLater(let reason):
            return retry(push, status: status, reason: reason, apnsID: apnsID, attempts: attempts)
        }
    }

    /// Sends a broadcast to the channel its followers' channel has on APNs.
    private func broadcast(_ push: ClaimedPush, to channel: BroadcastChannelID) async -> PushResult? {
        let message = push.message
        guard let sender = channels?.channelSender else {
            return PushResult(push, .rejected(status: nil, reason: "not sent: no broadcast channel sender is configured"))
        }
        guard let bundleID = message.topic.bundleID(of: .liveactivity) else {
            return PushResult(push, .rejected(status: nil, reason: "not sent: topic \(message.topic) is not a Live Activity topic"))
        }
        let answer: APNsChannelAnswer<Void>
        do {
            answer = try await sender.broadcast(APNsBroadcastRequest(
                channelID: channel, bundleID: bundleID, priority: message.priority.rawValue, expiration: message.expiration,
                payload: message.payload))
        } catch let error as APNsChannelRequestError {
            return PushResult(push, .rejected(status: nil, reason: "not sent: \(error)"))
        } catch {
            return nil
        }
        let attempts = push.attempts - 1 + answer.attempts
        let status = answer.response?.status
        let requestID = answer.response?.requestID
        switch answer.outcome {
        case .succeeded:
            return PushResult(push, .delivered(apnsID: requestID, status: status ?? 200, attempts: attempts))
        case .channelGone(let reason):
            return PushResult(push, .channelGone(status: status ?? 400, reason: reason.description, apnsID: requestID,
                                                 attempts: attempts))
        case .rejected(let reason):
            return PushResult(push, .rejected(status: status, reason: reason.description, apnsID: requestID, attempts: attempts))
        case .channelLimitReached:
            return PushResult(push, .rejected(status: status, reason: "CannotCreateChannelConfig", apnsID: requestID,
                                              attempts: attempts))
        case .retryLater(let reason):
            return retry(push, status: status, reason: reason, apnsID: requestID, attempts: attempts)
        }
    }

    /// Claimed again later with backoff, or given up after `maximumClaims` claims.
    private func retry(_ push: ClaimedPush, status: Int?, reason: APNsReason, apnsID: String?, attempts: Int) -> PushResult {
        guard push.attempts < settings.maximumClaims else {
            return PushResult(push, .rejected(status: status, reason: "gave up after \(attempts) attempts: \(reason)",
                                              apnsID: apnsID, attempts: attempts))
        }
        let wait = min(settings.longestRetryWait, settings.firstRetryWait * pow(2, Double(push.attempts - 1)))
        return PushResult(push, .retryLater(at: now().addingTimeInterval(wait), reason: reason.description))
    }
}

/// A stop whose drain ran out of time with pushes in hand.
public struct PushesLeftUnsent: Error, CustomStringConvertible {
    public var count: Int
    public var description: String {
        "stopped with \(count) push(es) not sent or not recorded; they go back to pending once this node's claims expire"
    }
}
