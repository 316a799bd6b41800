import Vocabulary

/// Refusals both engines give for the same reason, worded once: mostly a row
/// looked up and not there.
extension StoreError {
    public static func unknownPlayer(_ id: PlayerID) -> StoreError { .notFound("player", id: id.rawValue) }
    public static func unknownParty(_ id: PartyID) -> StoreError { .notFound("party", id: id.rawValue) }
    /// `typed` as the player typed it, or as the code it reads as.
    public static func unknownInviteCode(_ typed: String) -> StoreError { .notFound("invite code", id: typed) }
    public static func unknownAdventure(_ id: AdventureID) -> StoreError { .notFound("adventure", id: id.rawValue) }
    public static func unknownActivity(_ id: ActivityID) -> StoreError { .notFound("activity", id: id.rawValue) }
    public static func unknownChannel(_ id: ChannelID) -> StoreError { .notFound("channel", id: id.rawValue) }
    public static func unknownChannelMember(_ id: ChannelMemberID) -> StoreError { .notFound("channel member", id: id.rawValue) }
    public static func unknownTransmission(_ id: TransmissionID) -> StoreError { .notFound("transmission", id: id.rawValue) }
    public static func unknownOutboxRow(_ id: OutboxID) -> StoreError { .notFound("outbox row", id: id.description) }

    public static func notAMember(of party: PartyID, player: PlayerID) -> StoreError {
        .notFound("membership of party \(party) for player", id: player.rawValue)
    }

    public static func notInChannel(_ channel: ChannelID, player: PlayerID) -> StoreError {
        .notFound("member of channel \(channel)", id: player.rawValue)
    }

    public static func notFollowing(_ adventure: AdventureID, player: PlayerID) -> StoreError {
        .notFound("follower of adventure \(adventure)", id: player.rawValue)
    }

    /// A constraint of the schema refused the write (`malformed`: a check or a
    /// missing value, so the input was wrong; otherwise a uniqueness or a
    /// reference, so it contradicts what is stored). `detail` is the database's, if it gave one.
    public static func refusedBySchema(_ detail: String?, malformed: Bool) -> StoreError {
        malformed ? .invalid("refused by the schema: \(detail ?? "a check failed")")
            : .conflict("refused by the schema: \(detail ?? "a constraint failed")")
    }

    /// A device id is the app's; another player presenting it is not this device's owner.
    public static func deviceOfAnotherPlayer(_ device: DeviceID) -> StoreError {
        .forbidden("device \(device) belongs to another player")
    }
}
