import Game
import Vocabulary

/// What both engines decide the same way about a Live Activity: who may register
/// it, when a token replaces the one it has, what marking it does. Each engine
/// reads the rows (under its own locks), this says what they mean.
public enum ActivityRules {
    /// A push-to-start token registered for `device` by `player`: a device id is
    /// the app's, so once stored it is its first player's (`owner`, nil for a new
    /// id); another player presenting it is not that device's owner.
    public static func checkDeviceOwner(_ device: DeviceID, owner: PlayerID?, player: PlayerID) throws(StoreError) {
        guard owner == nil || owner == player else { throw .deviceOfAnotherPlayer(device) }
    }

    /// A registration as the app sent it: the activity of `hero` (nil: a
    /// follower's) of `player` in `adventure`.
    public struct Registration: Hashable, Sendable {
        public var activity: ActivityID
        public var player: PlayerID
        public var adventure: AdventureID
        public var hero: HeroID?

        public init(activity: ActivityID, player: PlayerID, adventure: AdventureID, hero: HeroID?) {
            self.activity = activity
            self.player = player
            self.adventure = adventure
            self.hero = hero
        }
    }

    /// An activity as stored, as far as a registration or a report looks at it.
    public struct Stored: Hashable, Sendable {
        public var player: PlayerID
        public var adventure: AdventureID
        public var hero: HeroID?
        public var status: LiveActivityStatus

        public init(player: PlayerID, adventure: AdventureID, hero: HeroID?, status: LiveActivityStatus) {
            self.player = player
            self.adventure = adventure
            self.hero = hero
            self.status = status
        }
    }

    /// A hero's activity is for one of the player's heroes in the adventure's
    /// roster; one without a hero is a follower's (`followerDelivery`, read only
    /// then, nil when the player does not follow).
    public static func checkRegistrant(_ registration: Registration, roster: [PartyMember],
                                       followerDelivery: FollowerDelivery?) throws(StoreError) {
        if let hero = registration.hero {
            guard roster.contains(PartyMember(player: registration.player, hero: hero)) else {
                throw .forbidden("hero '\(hero)' is not yours in adventure \(registration.adventure)")
            }
        } else {
            try StoredValueLimits.checkFollowerActivity(delivery: followerDelivery, adventure: registration.adventure)
        }
    }

    /// A registration of an activity stored already is a repeat or a rotation:
    /// the same player's, for the same adventure and hero.
    public static func checkRepeat(_ registration: Registration, of stored: Stored) throws(StoreError) {
        try checkOwner(registration.activity, stored, player: registration.player)
        guard stored.adventure == registration.adventure, stored.hero == registration.hero else {
            throw .conflict("activity \(registration.activity) is registered for another adventure or hero")
        }
    }

    /// A new activity follows a running adventure only.
    public static func checkNew(in adventure: AdventureID, isRunning: Bool) throws(StoreError) {
        guard isRunning else { throw .conflict("adventure \(adventure) has ended; no new activity can follow it") }
    }

    /// Only the player who registered an activity rotates its token or reports on it.
    public static func checkOwner(_ activity: ActivityID, _ stored: Stored, player: PlayerID) throws(StoreError) {
        guard stored.player == player else { throw .forbidden("activity \(activity) belongs to another player") }
    }

    /// Whether `token` is to be installed as the activity's one valid token, the
    /// one it has (`current`) invalidated: false when it is that one already.
    /// A final activity takes no new token.
    public static func installs(_ token: PushToken, on activity: ActivityID, status: LiveActivityStatus,
                                current: PushToken?) throws(StoreError) -> Bool {
        if current == token { return false }
        guard status == .active else { throw .conflict("activity \(activity) is \(status.rawValue); it takes no new token") }
        return true
    }

    /// The status to store for a report, or nil to leave it: dismissed is final,
    /// and an ended activity the user then dismisses becomes dismissed.
    public static func statusAfter(report: ReportedActivityStatus, stored: LiveActivityStatus) -> LiveActivityStatus? {
        stored == .dismissed ? nil : report.status
    }
}
