import Foundation
import PushPolicy
import Testing

/// The README's priority table is the code's table, so a game designer reads what runs.
@Test func readmeShowsThePushRulesTable() throws {
    let readme = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("README.md")
    let text = try String(contentsOf: readme, encoding: .utf8)
    #expect(text.contains(PushRule.markdownTable), "README.md must contain:\n\(PushRule.markdownTable)")
}
