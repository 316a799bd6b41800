// What a node holds for each running adventure between ticks, part by part:
// the adventure as stored (setup and state), its tick pipeline (the resolved
// rules of play and the push policy made from them), its reachable activities
// and their budgets. Made for N adventures of 3 heroes (every ordered choice of 3 of the
// 6 heroes in turn, on every route in turn), and measured as the growth of the
// resident set over each part. The pipelines are made twice: each resolved on
// its own, and sharing the resolved rules of an adventure of the same route and
// heroes, as the ticker's `RunningAdventures` makes them.
//
//   swift run -c release HeldMemoryBench [--adventures 10000]
import Catalog
import Foundation
import Game
import PushPolicy
import Store
import Vocabulary
#if canImport(Glibc)
import Glibc
#endif

let arguments = CommandLine.arguments
let count = arguments.firstIndex(of: "--adventures").flatMap { Int(arguments[$0 + 1]) } ?? 10_000
let content = try LoadedContent.load(from: URL(fileURLWithPath: "Content", isDirectory: true),
                                     requiring: PushPolicy.contentRequirements)

/// Resident bytes, from /proc/self/statm (its second field, in pages).
func residentBytes() -> Int {
    let fields = ((try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8)) ?? "").split(separator: " ")
    return fields.count > 1 ? (Int(fields[1]) ?? 0) * Int(sysconf(Int32(_SC_PAGESIZE))) : 0
}

let allHeroes = content.game.heroes.map(\.id)
let routes = content.game.routes.map(\.id)
/// Every ordered choice of 3 heroes, as parties form in the order players join.
let parties: [[HeroID]] = allHeroes.flatMap { first in
    allHeroes.filter { $0 != first }.flatMap { second in
        allHeroes.filter { $0 != first && $0 != second }.map { [first, second, $0] }
    }
}
func measure<T>(_ make: () throws -> T) rethrows -> (T, bytes: Int) {
    let before = residentBytes()
    let made = try make()
    return (made, residentBytes() - before)
}

let (adventures, adventureBytes) = try measure {
    try (0..<count).map { index in
        let heroes = parties[index % parties.count]
        let roster = heroes.enumerated().map { PartyMember(player: PlayerID("player-\(index)-\($0.offset)"), hero: $0.element) }
        let setup = AdventureSetup(route: routes[index % routes.count], party: roster, tickInterval: 1,
                                   timeLimit: AdventureSetup.longestTimeLimit, seed: UInt64(index))
        let state = try Adventure(setup: setup, content: content.game).start()
        return StoredAdventure(id: .random(), party: .random(), setup: setup, contentVersion: content.version,
                               startedAt: 1_800_000_000, state: state, lastTick: 0, nextTickAt: 1_800_000_001)
    }
}
func pipeline(_ adventure: StoredAdventure, sharingWith other: TickPipeline? = nil) throws -> TickPipeline {
    try TickPipeline(adventureID: adventure.id, setup: adventure.setup, startedAt: adventure.startedAt, content: content.game,
                     strings: content.strings, configuration: .standard, sharingWith: other)
}
let (unshared, unsharedBytes) = try measure { try adventures.map { try pipeline($0) } }
let (pipelines, pipelineBytes) = try measure {
    var rosters: [AdventureSetup.RulesKey: TickPipeline] = [:]
    return try adventures.map { adventure in
        let roster = adventure.setup.rulesKey
        let made = try pipeline(adventure, sharingWith: rosters[roster])
        if rosters[roster] == nil { rosters[roster] = made }
        return made
    }
}
let (activities, activityBytes) = measure {
    // An activity's id is ActivityKit's, a UUID.
    adventures.map { adventure in
        adventure.setup.party.enumerated().map { slot, member in
            LiveActivityRecipient(activityID: ActivityID(UUID().uuidString), player: member.player, hero: member.hero,
                                  frequentUpdates: slot == 0)
        }
    }
}
// Each adventure played for a minute, so the budgets hold what an hour of pushes leaves.
let (ledgers, ledgerBytes) = try measure {
    try zip(activities, pipelines).map { recipients, pipeline in
        var ledgers: [ActivityID: BudgetLedger] = [:]
        try pipeline.play(commands: [], recipients: recipients, through: 60) { ledgers = $0.ledgers }
        return ledgers
    }
}

func line(_ part: String, _ bytes: Int) {
    print(part.padding(toLength: 60, withPad: " ", startingAt: 0) + String(format: "%7.0f bytes per adventure", Double(bytes) / Double(count)))
}
print("\(count) adventures of 3 heroes held (\(parties.count) orders of heroes × \(routes.count) routes)")
line("adventure (setup and state)", adventureBytes)
line("tick pipeline, resolved on its own", unsharedBytes)
line("tick pipeline, sharing rules by route and heroes", pipelineBytes)
line("3 activities (their recipients)", activityBytes)
line("budgets of 3 activities after 60 ticks", ledgerBytes)
let held = adventureBytes + pipelineBytes + activityBytes + ledgerBytes
line("held: adventure, pipeline as the ticker makes it, activities, budgets", held)
line("the same with every pipeline resolved on its own", held - pipelineBytes + unsharedBytes)
withExtendedLifetime((adventures, unshared, pipelines, activities, ledgers)) {}
