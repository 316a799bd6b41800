import Foundation
import PushPolicy
import Testing

/// The push policy page's priority table (docs/push-policy.md) is the code's table, so a game
/// designer reads what runs.
@Test func readmeShowsThePushRulesTable() throws {
    let readme = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("docs/push-policy.md")
    let text = try String(contentsOf: readme, encoding: .utf8)
    #expect(text.contains(PushRule.markdownTable), "docs/push-policy.md must contain:\n\(PushRule.markdownTable)")
}
