import Foundation
@testable import Services
import Testing
import Vocabulary

/// Which of the app's unknown channels the keeper deletes, and when: at once when
/// no channel was being made as the store was read, else only once seen unknown
/// for the whole grace (a channel another node is making is stored well within it).
@Suite struct ChannelSweepTests {
    let start = Date(timeIntervalSince1970: 1_767_225_600)

    @Test func unknownChannelsAreDeletedAtOnceOrAfterTheGrace() {
        var sweeper = ChannelKeeper.Sweeper(grace: 600)
        #expect(sweeper.isDue(at: start), "a sweep at start")
        // Nothing being made: whatever is unknown goes now.
        #expect(sweeper.toDelete(.init(deletable: ["b3JwaGFu"], suspect: []), at: start) == ["b3JwaGFu"])
        #expect(!sweeper.isDue(at: start + 299))
        #expect(sweeper.isDue(at: start + 300), "then every half grace")
        // A channel was being made: the unknown ones are only suspects …
        #expect(sweeper.toDelete(.init(deletable: [], suspect: ["bmV3", "c2xvdw=="]), at: start + 300).isEmpty)
        // … "bmV3" is stored meanwhile (no longer unknown), "c2xvdw==" is still unknown:
        #expect(sweeper.toDelete(.init(deletable: [], suspect: ["c2xvdw=="]), at: start + 600).isEmpty)
        #expect(sweeper.toDelete(.init(deletable: [], suspect: ["c2xvdw=="]), at: start + 900) == ["c2xvdw=="])
        // "bmV3" seen unknown again later starts its grace anew.
        #expect(sweeper.toDelete(.init(deletable: [], suspect: ["bmV3"]), at: start + 1200).isEmpty)
    }
}
