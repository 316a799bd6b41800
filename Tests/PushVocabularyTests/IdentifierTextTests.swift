import Foundation
@testable import PushVocabulary
import Testing

@Suite struct IdentifierTextTests {
    /// Texts kept as a UUID's bytes, and texts kept as they are, of every shape
    /// near a UUID's.
    static let compact = [
        "E621E1F8-C36C-495A-93FC-0C247A3E6E5F", "e621e1f8-c36c-495a-93fc-0c247a3e6e5f",
        "00000000-0000-0000-0000-000000000000", "FFFFFFFF-FFFF-FFFF-FFFF-FFFFFFFFFFFF",
        "12345678-1234-1234-1234-123456789012", "ffffffff-ffff-ffff-ffff-ffffffffffff",
    ]
    static let asWritten = [
        "", "player-1", "E621E1F8-c36c-495A-93FC-0C247A3E6E5F", "E621E1F8C36C495A93FC0C247A3E6E5F",
        "{E621E1F8-C36C-495A-93FC-0C247A3E6E5}", "E621E1F8-C36C-495A-93FC-0C247A3E6E5G", "E621E1F8_C36C-495A-93FC-0C247A3E6E5F",
        "E621E1F8-C36C-495A-93FC-0C247A3E6E5F ", "É621E1F8-C36C-495A-93FC-0C247A3E6E5", "e621e1f8-c36c-495a-93fc-0c247a3e6e5",
    ]

    @Test(arguments: compact + asWritten)
    func givesBackExactlyTheTextItWasMadeFrom(_ text: String) {
        #expect(IdentifierText(text).string == text)
    }

    @Test func keepsAUUIDInOneCaseAsItsBytesAndAnythingElseAsWritten() {
        for text in Self.compact { #expect(IdentifierText(text).isCompact, "\(text)") }
        for text in Self.asWritten { #expect(!IdentifierText(text).isCompact, "\(text)") }
        // The bytes of a UUID that Foundation reads the same way.
        let uuid = UUID()
        #expect(IdentifierText(uuid.uuidString).string == uuid.uuidString)
        #expect(IdentifierText(uuid.uuidString.lowercased()).string == uuid.uuidString.lowercased())
    }

    @Test func equalAndHashedExactlyAsTheirTexts() {
        let texts = Self.compact + Self.asWritten + (0..<50).map { _ in UUID().uuidString }
            + (0..<50).map { _ in UUID().uuidString.lowercased() }
        for a in texts {
            for b in texts {
                #expect((IdentifierText(a) == IdentifierText(b)) == (a == b), "\(a) \(b)")
            }
        }
        let set = Set(texts.map(IdentifierText.init))
        #expect(set.count == Set(texts).count)
        for text in texts { #expect(set.contains(IdentifierText(text))) }
        // The same letters in two cases are two ids, as they are two texts.
        #expect(IdentifierText("E621E1F8-C36C-495A-93FC-0C247A3E6E5F") != IdentifierText("e621e1f8-c36c-495a-93fc-0c247a3e6e5f"))
    }
}
