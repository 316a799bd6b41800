import Game
import Store
import Testing

@Suite struct TickEventsTextTests {
    @Test func aTicksEventsComeBackByteForByteInOrder() {
        let texts = [#"{"a":1}"#, #"{"b":"x\ny"}"#, "", "carriage return at the end\r", "ünïcödé"]
        #expect(TickEventsText.events(in: TickEventsText.text(of: texts)) == texts)
        #expect(TickEventsText.texts([(tick: 2, events: TickEventsText.text(of: texts))]).map(\.json) == texts)
    }

    @Test func aTextThatIsNotAnEventIsAnErrorNotACrash() {
        #expect(throws: (any Error).self) {
            try TickEventsText.decoded([(tick: 1, events: #"{"type":"bossEnraged"}"# + "\nnot json")])
        }
    }
}
