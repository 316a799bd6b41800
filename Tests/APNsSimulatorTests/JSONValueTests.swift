@testable import APNsSimulator
import Foundation
import Testing

/// The simulator's own JSON parser, on the strings a payload may hold.
@Suite struct JSONValueTests {
    private func parse(_ bytes: [UInt8]) throws(JSONSyntaxError) -> JSONValue { try JSONValue.parse(Data(bytes)) }
    private func parse(_ text: String) throws(JSONSyntaxError) -> JSONValue { try parse(Array(text.utf8)) }

    @Test func readsStringsWithAndWithoutEscapesExactly() throws {
        let cases: [(json: String, text: String)] = [
            (#""""#, ""),
            (#""Power Panda used a potion!""#, "Power Panda used a potion!"),
            (#""Épée 🐼 力""#, "Épée 🐼 力"),
            (#""a\"b\\c\/d\be\ff\ng\rh\ti""#, "a\"b\\c/d\u{8}e\u{C}f\ng\rh\ti"),
            (#""plain first, then\nan escape""#, "plain first, then\nan escape"),
            (#""\u00e9\u00C9 \ud83d\udc3c""#, "éÉ 🐼"),
        ]
        for (json, text) in cases {
            #expect(try parse(json) == .string(text), "\(json)")
            #expect(try parse("{\(json):\(json)}") == .object([text: .string(text)]), "\(json)")
        }
    }

    @Test func refusesStringsThatAreNotJSONText() {
        let quote = UInt8(ascii: "\"")
        let cases: [(bytes: [UInt8], detail: String)] = [
            ([quote, 0x61, 0xFF, 0x62, quote], "not valid UTF-8"),
            ([quote, 0x61, 0x5C, 0x6E, 0xC3, quote], "not valid UTF-8"),  // a truncated é after an escape
            ([quote, 0x61, 0x0A, 0x62, quote], "control character"),
            ([quote, 0x61, 0x62], "unterminated string"),
            (Array(#""\ud83d""#.utf8), "unpaired surrogate"),
            (Array(#""\q""#.utf8), "invalid escape"),
        ]
        for (bytes, detail) in cases {
            let error = #expect(throws: JSONSyntaxError.self, "\(bytes)") { try parse(bytes) }
            #expect(error?.message.contains(detail) == true, "\(String(describing: error))")
        }
    }
}
