import Vocabulary

/// The policy's knobs. Apple publishes no numbers for the high-priority budget,
/// so the defaults below are this server's choice; docs/push-policy.md says why.
public struct PushPolicyConfiguration: Hashable, Codable, Sendable {
    /// High-priority pushes per activity in any sliding hour, when the app reported
    /// `frequentPushesEnabled` …
    public var highPriorityPerHourWithFrequentUpdates: Int
    /// … and when it did not (or the user turned frequent updates off).
    public var highPriorityPerHour: Int
    /// Least seconds between two routine (low-priority, alert-less) pushes to one
    /// activity, with frequent updates on and off. At least 1: timestamps have
    /// one-second resolution and must strictly increase per activity.
    public var routineSpacingWithFrequentUpdates: Int
    public var routineSpacing: Int
    /// An update goes stale when this many expected updates are missed …
    public var staleAfterMissedUpdates: Int
    /// … but never sooner than this many seconds after its timestamp.
    public var minimumStaleSeconds: Int
    /// Seconds an ended activity stays on the Lock Screen.
    public var dismissalDelay: Int

    public init(
        highPriorityPerHourWithFrequentUpdates: Int = 30, highPriorityPerHour: Int = 10,
        routineSpacingWithFrequentUpdates: Int = 1, routineSpacing: Int = 5,
        staleAfterMissedUpdates: Int = 3, minimumStaleSeconds: Int = 30, dismissalDelay: Int = 15 * 60
    ) {
        self.highPriorityPerHourWithFrequentUpdates = highPriorityPerHourWithFrequentUpdates
        self.highPriorityPerHour = highPriorityPerHour
        self.routineSpacingWithFrequentUpdates = routineSpacingWithFrequentUpdates
        self.routineSpacing = routineSpacing
        self.staleAfterMissedUpdates = staleAfterMissedUpdates
        self.minimumStaleSeconds = minimumStaleSeconds
        self.dismissalDelay = dismissalDelay
    }

    public static let standard = PushPolicyConfiguration()

    /// What is wrong with these values, by setting name; empty when they are usable.
    public var problems: [String] {
        var problems: [String] = []
        func require(_ ok: Bool, _ message: String) { if !ok { problems.append(message) } }
        require(highPriorityPerHour >= 0, "highPriorityPerHour must be 0 or more")
        require(highPriorityPerHourWithFrequentUpdates >= highPriorityPerHour,
                "highPriorityPerHourWithFrequentUpdates must be at least highPriorityPerHour")
        require(routineSpacing >= 1 && routineSpacingWithFrequentUpdates >= 1, "routine spacing must be at least 1 second")
        require(staleAfterMissedUpdates >= 1, "staleAfterMissedUpdates must be 1 or more")
        require(minimumStaleSeconds >= 1, "minimumStaleSeconds must be 1 or more")
        require((0...4 * 3600).contains(dismissalDelay), "dismissalDelay must be 0…14400 seconds (the system keeps an ended activity at most 4 hours)")
        return problems
    }

    /// The `dismissal-date` of an end decided at `end` (unix seconds).
    public func dismissalDate(ofEndAt end: Int) -> Int { end + dismissalDelay }

    /// The latest end whose dismissal date has passed at `now`: an activity ended
    /// then has left every Lock Screen.
    public func latestEndDismissed(by now: Int) -> Int { now - dismissalDelay }

    func budget(frequentUpdates: Bool) -> Int {
        frequentUpdates ? highPriorityPerHourWithFrequentUpdates : highPriorityPerHour
    }

    func routineSpacing(frequentUpdates: Bool) -> Int {
        frequentUpdates ? routineSpacingWithFrequentUpdates : routineSpacing
    }
}

/// What the policy remembers about one Live Activity between ticks. The server
/// stores it with the activity, so budgets survive a restart.
public struct BudgetLedger: Hashable, Codable, Sendable {
    /// Timestamps of high-priority pushes within the last hour.
    public var highPrioritySent: [Int] = []
    /// Timestamp of the last push of any kind. A routine update held back by the
    /// spacing needs no record: the boss acts every tick, so the next tick brings
    /// a push that carries the newest state.
    public var lastPushAt: Int?

    public init() {}

    static let window = 3600

    func highPriorityCount(at now: Int) -> Int {
        highPrioritySent.count { $0 > now - Self.window }
    }

    mutating func record(at now: Int, priority: Priority) {
        highPrioritySent.removeAll { $0 <= now - Self.window }
        if priority == .high { highPrioritySent.append(now) }
        lastPushAt = now
    }

    /// Whether a tick that left this budget, from `before`, writes it back: only
    /// when the high-priority pushes it counts changed. The time of the last push
    /// changes with every push, and every push is stored with its tick, which is
    /// where a budget read back takes that time from (`resumed`): a routine push
    /// does not rewrite its activity's row for it.
    func isWrittenBack(after before: BudgetLedger?) -> Bool {
        highPrioritySent != (before ?? BudgetLedger()).highPrioritySent
    }

    /// This budget, as stored, given the time of the newest push a tick queued
    /// for its activity (`PushPolicy.time(ofTick:startedAt:tickInterval:)` of that
    /// tick): what the policy goes on from, the same as had it never been stored.
    public func resumed(lastPushAt newest: Int?) -> BudgetLedger {
        guard let newest, newest > lastPushAt ?? .min else { return self }
        var resumed = self
        resumed.lastPushAt = newest
        return resumed
    }
}
