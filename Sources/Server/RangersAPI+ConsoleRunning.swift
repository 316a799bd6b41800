import ConsoleView
import Foundation
import Hummingbird
import LiveView
import Store
import Vocabulary

/// Running adventures in the console: the list, one adventure's page (which
/// loads itself again while it runs), and the end, confirmed on a page of its own.
extension RangersAPI {
    static let answersShown = 8

    /// `GET /console/adventures`
    func consoleRunning(_ request: Request) async throws -> Response {
        try await consolePage {
            let session = try await consoleGate.session(request)
            var rows: [ConsoleAdventurePages.Row] = []
            for adventure in try await store.runningAdventures() {
                rows.append(ConsoleAdventurePages.Row(adventure: adventure, partyName: try await store.party(adventure.party).name))
            }
            return Self.page(ConsoleAdventurePages.running(Self.signedIn(session), rows, names: consoleNames))
        }
    }

    /// `GET /console/adventures/{adventureID}`
    func consoleAdventure(_ request: Request, id: PathParameter<AdventureID>) async throws -> Response {
        try await consolePage {
            let session = try await consoleGate.session(request)
            let detail = try await adventureDetail(try id.checked())
            return Self.page(ConsoleAdventurePages.detail(Self.signedIn(session), detail, names: consoleNames,
                                                          extra: try await finishedSection(detail.adventure)))
        }
    }

    /// `GET /console/adventures/{adventureID}/end`: are you sure?
    func consoleConfirmEnd(_ request: Request, id: PathParameter<AdventureID>) async throws -> Response {
        try await consolePage {
            let session = try await consoleGate.session(request)
            let adventure = try await store.adventure(try id.checked())
            guard adventure.status == .running else { return Self.redirect(to: ConsolePaths.adventure(adventure.id.rawValue)) }
            return Self.page(ConsoleAdventurePages.confirmEnd(Self.signedIn(session), adventure: adventure,
                                                              partyName: try await store.party(adventure.party).name))
        }
    }

    /// `POST /console/adventures/{adventureID}/end`: the API's end (queued for the next tick), audited.
    func consoleEnd(_ request: Request, context: RangersRequestContext, id: PathParameter<AdventureID>) async throws -> Response {
        try await consolePage {
            let (session, form) = try await consoleGate.change(request)
            let adventure = try id.checked()
            guard form["confirm"] == "yes" else {
                throw ConsoleRefusal.invalid("Ending an adventure is confirmed on its own page: follow “End this adventure…”.")
            }
            try await store.endAdventureRequested(adventure, at: now())
            try await store.recordConsoleAudit(NewConsoleAuditEntry(action: .endAdventure, session: session.reference,
                                                                    client: clientAddress(request, context), detail: "adventure \(adventure)"),
                                               at: now())
            return Self.redirect(to: ConsolePaths.adventure(adventure.rawValue))
        }
    }

    func adventureDetail(_ id: AdventureID) async throws -> ConsoleAdventurePages.Detail {
        let adventure = try await store.adventure(id)
        var pushes: [OutboxState: Int] = [:]
        for entry in try await store.outbox(of: id) { pushes[entry.state, default: 0] += 1 }
        let answers = try await store.pushLog(of: id).suffix(Self.answersShown).reversed()
        let queued = adventure.status == .running ? try await store.tickInputs(of: id).commands : []
        let expiresAt = Int(now().timeIntervalSince1970) + LiveLinkGrant.defaultLifetime
        let token = liveLinks.token(for: LiveLinkGrant(adventure: id, expiresAt: expiresAt, viewer: .gameMaster))
        return ConsoleAdventurePages.Detail(
            adventure: adventure, partyName: try await store.party(adventure.party).name, pushes: pushes, lastAnswers: Array(answers),
            followers: try await store.followers(of: id).count, followerChannels: try await store.followerChannels(of: id).count,
            livePage: "/live/adventures/\(ConsolePaths.segment(id.rawValue))?token=\(token)",
            endRequested: queued.contains { $0.command == .endAdventure },
            holder: adventure.status == .running ? try await store.adventureHolder(id) : nil)
    }
}
