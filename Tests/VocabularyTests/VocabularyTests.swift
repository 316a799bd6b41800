import Foundation
import Testing
import Vocabulary

@Suite struct IdentifierTests {
    @Test func identifiersEncodeAsTheirPlainValues() throws {
        let encoded = try JSONEncoder().encode([AdventureID("a-1")])
        #expect(String(decoding: encoded, as: UTF8.self) == #"["a-1"]"#)
        let ids = try JSONDecoder().decode([OutboxID].self, from: Data("[3,1]".utf8))
        #expect(ids.sorted() == [OutboxID(1), OutboxID(3)])
    }

    @Test func inviteCodesAcceptWhatPeopleType() {
        #expect(InviteCode(typed: "abcd-efgh")?.rawValue == "ABCDEFGH")
        #expect(InviteCode(typed: "ABCD EFG0") == nil, "0 is left out of the alphabet")
        // Only ASCII letters fold: uppercased, "ßßßß" would be "SSSSSSSS" and "ﬀ" "FF".
        #expect(InviteCode(typed: "ßßßß") == nil)
        #expect(InviteCode(typed: "ABCDEF\u{FB00}") == nil)
        #expect(InviteCode.random().rawValue.count == InviteCode.length)
    }
}
