// The Live Activity payload's JSON two ways, side by side in one run: the
// hand-written encoding `PayloadEncoder.encode` uses, and `JSONEncoder` through
// `Codable` (`PayloadEncoder.json`), over the same typical payloads: an update
// of a party of three with an alert, and a push-to-start with its attributes.
//
//   swift run -c release PayloadBench [--seconds 2]
import Foundation
import Wire

let arguments = CommandLine.arguments
let seconds = arguments.firstIndex(of: "--seconds").flatMap { Double(arguments[$0 + 1]) } ?? 2

let party = [("power-panda", "Power Panda", "🐼"), ("egghead", "Egghead", "🥚"), ("spouty", "Spouty", "🐳")]
let state = AdventureAttributes.ContentState(
    currentHealthLevel: 0.62, eventDescription: "Thorn Wolf hits Egghead for 21 (blocked 4). Egghead is down!",
    heroes: party.enumerated().map { HeroStatus(id: $1.0, healthLevel: [0.62, 0, 0.875][$0], isKnockedDown: $0 == 1) },
    boss: BossStatus(id: "thorn-wolf", healthLevel: 0.4375, isEnraged: true, position: 1),
    latestEvent: EventText(key: "event.heroKnockedDown", args: ["Egghead", "Thorn Wolf"]), potions: 2)
let alert = Alert(title: .localized(key: "ALERT_HERO_DOWN_TITLE", args: ["Egghead"]),
                  body: .localized(key: "ALERT_HERO_DOWN_BODY", args: ["Egghead", "Thorn Wolf"]), sound: "HeroDown.caf")
let attributes = AdventureAttributes(
    adventureID: "3f6c2a9e-5b1d-4c7a-9e0f-1a2b3c4d5e6f", heroID: "egghead", routeName: "Whispering Woods",
    party: party.map { HeroSummary(id: $0.0, name: $0.1, avatar: $0.2) },
    bosses: [BossSummary(id: "moss-golem", name: "Moss Golem", avatar: "🗿"), BossSummary(id: "thorn-wolf", name: "Thorn Wolf", avatar: "🐺")],
    endsAt: Date(timeIntervalSinceReferenceDate: 786_000_000))
let payloads = [
    LiveActivityPayload(timestamp: UnixTimestamp(seconds: 1_767_225_642), event: .update(alert: alert), contentState: state,
                        staleDate: UnixTimestamp(seconds: 1_767_225_672), relevanceScore: 87.5),
    LiveActivityPayload(timestamp: UnixTimestamp(seconds: 1_767_225_600), event: .start(attributes: attributes, alert: alert),
                        contentState: state, staleDate: UnixTimestamp(seconds: 1_767_225_630), relevanceScore: 50),
]
let encoder = PayloadEncoder()
for payload in payloads where try encoder.encode(payload) != (try encoder.json(payload)) {
    FileHandle.standardError.write(Data("PayloadBench: the two encodings differ\n".utf8))
    exit(1)
}

/// Encodings per second for `seconds`, alternating the two payloads.
func rate(_ encode: (LiveActivityPayload) throws -> Data) rethrows -> Double {
    let clock = ContinuousClock()
    let start = clock.now
    var count = 0, bytes = 0
    while clock.now - start < .seconds(seconds) {
        for _ in 0..<100 {
            bytes &+= try encode(payloads[count & 1]).count
            count += 1
        }
    }
    let elapsed = clock.now - start
    return Double(count) / (Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
}

let written = try rate(encoder.encode)
let codable = try rate(encoder.json)
print(String(format: "hand-written  %9.0f payloads/s  %6.2f µs each", written, 1e6 / written))
print(String(format: "JSONEncoder   %9.0f payloads/s  %6.2f µs each", codable, 1e6 / codable))
print(String(format: "ratio         %.1f× faster", written / codable))
