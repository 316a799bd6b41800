import Foundation
import Game
import Store
import Testing
import Vocabulary

/// A running adventure's state at `tick`, made without content: the rules only
/// look at its tick and status.
func state(tick: Int, status: AdventureStatus = .running) -> AdventureState {
    let json = """
        {"tick": \(tick), "status": "\(status.rawValue)",
         "heroes": [{"hero": "egghead", "player": "p1", "health": 10, "maxHealth": 10}],
         "bossIndex": 0,
         "boss": {"boss": "slime", "rank": "minion", "health": 5, "maxHealth": 5, "shield": 0, "enraged": false,
                  "usedHealPhase": false, "usedShieldPhase": false},
         "potions": 1, "random": {"s0": 1, "s1": 2, "s2": 3, "s3": 4}}
        """
    return try! JSONDecoder().decode(AdventureState.self, from: Data(json.utf8))
}

func tickRecord(_ adventure: AdventureID = "a1", tick: Int, stateTick: Int? = nil,
                commands: [CommandID] = []) -> TickRecord {
    TickRecord(adventure: adventure, tick: tick, state: state(tick: stateTick ?? tick), events: [],
               appliedCommandIDs: commands, outbox: [], ledgers: [:])
}

/// The refusal `body` throws, or nil when it returns.
func refusal<T>(_ body: () throws -> T) -> StoreError? {
    do {
        _ = try body()
        return nil
    } catch let refusal as StoreError {
        return refusal
    } catch {
        Issue.record("not a refusal: \(error)")
        return nil
    }
}

let ada = PlayerID("ada")
let bo = PlayerID("bo")
let cy = PlayerID("cy")
let panda = HeroID("power-panda")
let egghead = HeroID("egghead")
let spouty = HeroID("spouty")
