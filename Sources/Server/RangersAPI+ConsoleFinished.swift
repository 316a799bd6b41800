import Catalog
import ConsoleView
import Foundation
import Hummingbird
import Replay
import Store
import Vocabulary

/// Finished adventures in the console: the list, the replay on demand, the
/// timeline page and the session file.
extension RangersAPI {
    static let finishedPage = 25

    /// `GET /console/finished[?afterEnded=<unix seconds>&afterID=<id>]`
    func consoleFinished(_ request: Request) async throws -> Response {
        try await consolePage {
            let session = try await consoleGate.session(request)
            let query = request.uri.queryParameters
            let after: FinishedAdventureCursor?
            switch (query["afterEnded"].map(String.init), query["afterID"].map(String.init)) {
            case (nil, nil): after = nil
            case let (ended?, id?) where Int(ended) != nil && !id.isEmpty: after = FinishedAdventureCursor(endedAt: Int(ended)!, id: AdventureID(id))
            default: throw ConsoleRefusal.invalid("'afterEnded' (unix seconds) and 'afterID' go together: use the page's “Earlier adventures” link.")
            }
            let found = try await store.finishedAdventures(after: after, limit: Self.finishedPage + 1)
            var rows: [ConsoleAdventurePages.Row] = []
            for adventure in found.prefix(Self.finishedPage) {
                rows.append(ConsoleAdventurePages.Row(adventure: adventure, partyName: try await store.party(adventure.party).name))
            }
            let next = found.count > Self.finishedPage ? rows.last.flatMap { row in
                row.adventure.endedAt.map { ended in
                    var components = URLComponents()
                    components.path = ConsolePaths.finished
                    components.queryItems = [URLQueryItem(name: "afterEnded", value: String(ended)),
                                             URLQueryItem(name: "afterID", value: row.adventure.id.rawValue)]
                    return components.string ?? ConsolePaths.finished
                }
            } : nil
            return Self.page(ConsoleFinishedPages.list(Self.signedIn(session), rows, names: consoleNames, next: next))
        }
    }

    /// What a finished adventure's page adds; nothing while it runs.
    func finishedSection(_ adventure: StoredAdventure) async throws -> String {
        guard adventure.status != .running else { return "" }
        return ConsoleFinishedPages.section(adventure, outbox: try await store.outbox(of: adventure.id))
    }

    /// `GET /console/adventures/{adventureID}/replay`: plays it again from its
    /// setup and commands and compares every tick's events with the stored log.
    func consoleReplay(_ request: Request, id: PathParameter<AdventureID>) async throws -> Response {
        try await consolePage {
            let session = try await consoleGate.session(request)
            let saved = try await savedSession(try id.checked())
            let identical: Bool?
            let summary: String
            do {
                let report = try Verifier.verify(saved, with: ReplayContent(content))
                identical = report.isIdentical
                summary = report.isIdentical
                    ? "\(report.ticks) ticks played again, their \(report.events) events the same as stored."
                    : "they part ways at tick \(report.divergence!.tick)."
            } catch {
                identical = nil
                summary = "\(error)"
            }
            return Self.page(ConsoleFinishedPages.replay(Self.signedIn(session), adventure: saved.adventureID.rawValue,
                                                         identical: identical, summary: summary))
        }
    }

    /// `GET /console/adventures/{adventureID}/timeline`: the replay's timeline page.
    func consoleTimeline(_ request: Request, id: PathParameter<AdventureID>) async throws -> Response {
        try await consolePage {
            _ = try await consoleGate.session(request)
            let saved = try await savedSession(try id.checked())
            var response = Self.page(try HTMLTimeline.page(saved, content: ReplayContent(content)))
            // The timeline is self-contained: its own inline script and style, nothing from elsewhere.
            response.headers[.contentSecurityPolicy] = "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; "
                + "img-src data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
            return response
        }
    }

    /// `GET /console/adventures/{adventureID}/session`: the session file, to replay anywhere (`rangers replay`).
    func consoleSessionFile(_ request: Request, id: PathParameter<AdventureID>) async throws -> Response {
        try await consolePage {
            _ = try await consoleGate.session(request)
            let saved = try await savedSession(try id.checked())
            var response = Self.page("")
            response.headers[.contentType] = "application/json"
            response.headers[.contentDisposition] = "attachment; filename=\"adventure-\(ConsolePaths.segment(saved.adventureID.rawValue)).json\""
            response.body = .init(byteBuffer: ByteBuffer(bytes: try SessionFile.encode(saved)))
            return response
        }
    }

    /// The adventure as a session file holds it, with the content it was played with.
    private func savedSession(_ id: AdventureID) async throws -> SavedSession {
        let record = try await store.record(of: id)
        guard record.adventure.status != .running else {
            throw ConsoleRefusal.conflict("Adventure \(id) is still running: its replay, timeline and session file come when it has ended.")
        }
        return try SavedSession(record, content: try ContentSnapshot(of: content))
    }
}
