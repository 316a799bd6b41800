import Foundation
@testable import Server
import StoreTestSupport
import Testing

/// The SQLite file's disk fills up, or its filesystem turns read-only: a write is
/// answered 503 with a reason and `Retry-After`, never a bare 500, nothing stored
/// is lost, and the server goes on by itself once there is room again. On a
/// size-limited tmpfs, which only root may mount (CI runs as root).
@Suite(.enabled(if: getuid() == 0 || ProcessInfo.processInfo.environment["CI"] == "true",
                "mounting a size-limited filesystem needs root"))
struct SQLiteFaultTests {
    /// A tmpfs of `megabytes`, unmounted after `body`.
    func withSmallDisk(megabytes: Int, _ body: (URL) async throws -> Void) async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("rangers-disk-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try run("/bin/mount", ["-t", "tmpfs", "-o", "size=\(megabytes)m", "tmpfs", folder.path])
        do {
            try await body(folder)
        } catch {
            _ = try? run("/bin/umount", ["-l", folder.path])
            throw error
        }
        try run("/bin/umount", ["-l", folder.path])
        try? FileManager.default.removeItem(at: folder)
    }

    /// Fills the filesystem with one file, to the last byte it takes.
    func fill(_ folder: URL) -> URL {
        let filler = folder.appendingPathComponent("filler")
        FileManager.default.createFile(atPath: filler.path, contents: nil)
        let handle = FileHandle(forWritingAtPath: filler.path)!
        let chunk = Data(count: 64 * 1024)
        while (try? handle.write(contentsOf: chunk)) != nil {}
        let small = Data(count: 512)
        while (try? handle.write(contentsOf: small)) != nil {}
        try? handle.close()
        return filler
    }

    @Test func aFullDiskAnswers503AndTheServerGoesOnOnceThereIsRoom() async throws {
        try await withSmallDisk(megabytes: 8) { folder in
            let path = folder.appendingPathComponent("rangers.sqlite").path
            let server = try await TestServer(databasePath: path)
            try await server.test { api in
                #expect(try await api.send(.post, "/v1/players", body: #"{"name":"Ana"}"#).status == 201)
                let filler = fill(folder)
                var statuses: [Int] = []
                var refused: Reply?
                for index in 0..<200 where refused == nil {
                    let reply = try await api.send(.post, "/v1/players", body: #"{"name":"Player \#(index)"}"#)
                    statuses.append(reply.status)
                    if reply.status != 201 { refused = reply }
                }
                let answer = try #require(refused, "no write was refused on a full disk: \(statuses.count) went through")
                #expect(answer.status == 503, "\(answer.status) \(answer.text)")
                #expect(answer.json["error"].string == "unavailable")
                #expect(answer.json["message"].string?.contains("disk") == true, "\(answer.text)")
                #expect(answer.headers[.retryAfter] == "5")
                #expect(!statuses.contains(500))

                try FileManager.default.removeItem(at: filler)
                #expect(try await api.send(.post, "/v1/players", body: #"{"name":"Bao"}"#).status == 201, "goes on by itself")
            }
            let check = try await TestDatabase(engine: .sqlite, location: path).rows(sqlite: "PRAGMA integrity_check", postgres: "")
            #expect(check.first?.first == "ok")
        }
    }

    @Test func aFileThatCannotBeWrittenIsRefusedAtStart() async throws {
        try await withSmallDisk(megabytes: 4) { folder in
            let path = folder.appendingPathComponent("rangers.sqlite").path
            _ = try await TestServer(databasePath: path)
            try run("/bin/mount", ["-o", "remount,ro", folder.path])
            do throws(InvalidConfiguration) {
                _ = try await StoreChoice.sqlite(path: path).open()
                Issue.record("a read-only file was opened for writing")
            } catch {
                #expect(error.problems.map(\.setting) == ["databasePath"])
                #expect(error.description.contains("cannot write '\(path)'"), "\(error)")
                #expect(error.description.contains("read-only"), "\(error)")
            }
        }
    }
}
