import Catalog
import Foundation
import Game
import Replay
import Store
import Testing

@Suite struct SessionFileTests {
    /// An exported adventure and the bytes of its file.
    func exported() async throws -> (session: SavedSession, file: Data) {
        let (_, store, id) = try await ReplayFixture.recordedAdventure()
        let session = try SavedSession(try await store.record(of: id), content: try ContentSnapshot(of: ReplayFixture.loaded))
        return (session, try SessionFile.encode(session))
    }

    func object(_ data: Data) throws -> [String: Any] {
        try #require(JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    func data(_ object: [String: Any]) throws -> Data { try JSONSerialization.data(withJSONObject: object) }

    @Test func anExportedFileVerifiesWithoutTheDatabaseOrContent() async throws {
        let (path, store, id) = try await ReplayFixture.recordedAdventure()
        let original = try SavedSession(try await store.record(of: id), content: try ContentSnapshot(of: ReplayFixture.loaded))
        let file = try ReplayFixture.scratchDirectory().appendingPathComponent("session.json")
        try SessionFile.encode(original).write(to: file)
        // Nothing of the database is needed any more.
        try FileManager.default.removeItem(atPath: path)

        let read = try SessionFile.decode(try Data(contentsOf: file))
        #expect(read == original)
        let fields = try object(try Data(contentsOf: file))
        #expect(fields["format"] as? String == "emoji-rangers-session")
        #expect(fields["version"] as? Int == 1)
        let report = try Verifier.verify(read, with: try ReplayContent(snapshotOf: read))
        #expect(report.isIdentical)
        #expect(report.ticks == original.lastTick)
        #expect(report.pushes == original.pushes.count)
        #expect(try read.pushes.decoded().contains { $0.alert != nil })
    }

    @Test func reindentingKeepsTheFileValid() async throws {
        let (session, file) = try await exported()
        let pretty = try JSONSerialization.data(withJSONObject: try object(file), options: [.prettyPrinted])
        #expect(try SessionFile.decode(pretty) == session)
    }

    @Test func truncatedForeignAndNewerFilesGetPreciseErrors() async throws {
        let (_, file) = try await exported()
        var fields = try object(file)

        let truncated = file.prefix(file.count / 2)
        #expect(throws: SessionFileError.self) { try SessionFile.decode(Data(truncated)) }
        #expect(message(Data(truncated)).contains("not valid JSON"))
        #expect(message(Data()).contains("empty"))
        #expect(message(Data("[1, 2]".utf8)).contains("not a JSON object"))
        #expect(message(Data(#"{"name": "Power Panda"}"#.utf8)).contains("field 'format' is missing"))
        #expect(message(Data(#"{"format": "xcstrings", "version": 1}"#.utf8))
            .contains(#"field 'format' is "xcstrings", expected "emoji-rangers-session""#))

        fields["version"] = 2
        #expect(message(try data(fields)).contains("field 'version' is 2; this rangers reads session files up to version 1"))
        fields["version"] = 1

        var session = try #require(fields["session"] as? [String: Any])
        session["setup"] = nil
        fields["session"] = session
        #expect(message(try data(fields)) == "field 'session.setup' is missing")
        session = try #require(try object(file)["session"] as? [String: Any])
        session["lastTick"] = "forty"
        fields["session"] = session
        #expect(message(try data(fields)) == "field 'session.lastTick' should be a whole number")
    }

    @Test func editedFilesAreRefusedWithTheChecksumOrTheContentHash() async throws {
        let (_, file) = try await exported()
        var fields = try object(file)
        var session = try #require(fields["session"] as? [String: Any])
        var events = try #require(session["events"] as? [String])
        let tick = try #require(events[3].split(separator: " ").first)
        let edited = "\(tick) {'amount':999,'boss':'thorn-wolf','type':'bossHealed'}"
        #expect(events[3] != edited)
        events[3] = edited
        session["events"] = events
        fields["session"] = session
        let editedEvent = message(try data(fields))
        #expect(editedEvent.hasPrefix("checksum mismatch: field 'checksum' is sha256:"), "\(editedEvent)")

        session = try #require(try object(file)["session"] as? [String: Any])
        var content = try #require(session["content"] as? [String: Any])
        content["rules"] = (content["rules"] as? String ?? "").replacingOccurrences(of: "3", with: "9")
        session["content"] = content
        fields["session"] = session
        let editedContent = message(try data(fields))
        #expect(editedContent.contains("the content snapshot (field 'session.content') hashes to"), "\(editedContent)")
        #expect(editedContent.contains("edited after export"))
    }

    private func message(_ data: Data) -> String {
        do {
            _ = try SessionFile.decode(data)
            return "(decoded)"
        } catch {
            return error.description
        }
    }
}

/// A session file exported by `rangers replay export` before the store was put
/// behind its seam and the tick pipeline made one: what studios have saved must
/// keep replaying, and reading and writing it must keep its bytes.
@Suite struct SavedSessionFormatTests {
    @Test func aSessionSavedByAnEarlierVersionReplaysIdenticalAndKeepsItsBytes() throws {
        let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("Golden/session-format-1.json")
        let data = try Data(contentsOf: file)
        let session = try SessionFile.decode(data)
        let report = try Verifier.verify(session, with: try ReplayContent(snapshotOf: session))
        #expect(report.isIdentical)
        #expect(report.ticks == 116 && report.events == 589 && report.pushes == 255)
        #expect(try SessionFile.encode(session) == data)
    }
}
