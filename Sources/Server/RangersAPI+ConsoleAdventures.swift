import ConsoleView
import Foundation
import Hummingbird
import Store
import Vocabulary

/// Starting an adventure from the console: the API's request, read from the
/// form with the API's decoder, so the checks and their words are the API's.
extension RangersAPI {
    /// `POST /console/parties/{partyID}/adventures`: route, tickInterval, timeLimit, seed, followable.
    func consoleStartAdventure(_ request: Request, context: RangersRequestContext, party id: PathParameter<PartyID>) async throws -> Response {
        try await consolePage {
            let (session, form) = try await consoleGate.change(request)
            let party = try id.checked()
            var values: [String: String] = [:]
            for field in ConsoleStartForm.fields { values[field] = form[field] }
            let body: StartAdventureRequest
            do {
                body = try decoder.decode(StartAdventureRequest.self, from: Self.startRequestJSON(party: party, form: values))
            } catch let error as DecodingError {
                let refusal = APIError(error)
                return try await partyPage(party, session: session, form: values, refusal: refusal)
            }
            let started: StoredAdventure
            do {
                started = try await startAdventure(body)
            } catch let error as APIError {
                return try await partyPage(party, session: session, form: values, refusal: error)
            } catch let error as StoreError where APIError(error).status == .conflict || APIError(error).status == .forbidden {
                return try await partyPage(party, session: session, form: values, refusal: APIError(error))
            }
            let name = content.game.route(started.setup.route)?.name ?? started.setup.route.rawValue
            try await store.recordConsoleAudit(NewConsoleAuditEntry(
                action: .startAdventure, session: session.reference, client: clientAddress(request, context),
                detail: "adventure \(started.id) on \(name) for party \(party)"), at: now())
            return Self.redirect(to: ConsolePaths.adventure(started.id.rawValue))
        }
    }

    /// `POST /console/parties/{partyID}/walkie-talkie/close`: the API's close (each
    /// listener told to leave), audited.
    func consoleCloseWalkieTalkie(_ request: Request, context: RangersRequestContext, party id: PathParameter<PartyID>) async throws -> Response {
        try await consolePage {
            let (session, _) = try await consoleGate.change(request)
            let party = try await store.party(try id.checked())
            try await closeWalkieTalkie(of: party.id)
            try await store.recordConsoleAudit(NewConsoleAuditEntry(action: .closeWalkieTalkie, session: session.reference,
                                                                    client: clientAddress(request, context), detail: "party \(party.id)"),
                                               at: now())
            return Self.redirect(to: ConsolePaths.party(party.id.rawValue))
        }
    }

    /// The party's page with the start form as it was sent, the refusal beside its field.
    func partyPage(_ id: PartyID, session: ConsoleSession, form values: [String: String] = [:],
                   refusal: APIError? = nil) async throws -> Response {
        let view = try await partyView(id)
        let extra: String
        if let running = view.adventures.first(where: { $0.status == .running }) {
            extra = ConsolePartyPages.onAdventure(running.id.rawValue, tick: running.lastTick, problem: refusal?.message)
        } else {
            var form = ConsoleStartForm(partyID: id.rawValue, csrfToken: session.csrfToken,
                                        routes: content.game.routes.map { ($0.id.rawValue, $0.name) }, values: values)
            if let refusal {
                if let field = refusal.field, ConsoleStartForm.fields.contains(field) {
                    form.problems[field] = refusal.message
                } else {
                    form.partyProblem = refusal.message
                }
            }
            extra = form.html
        }
        var response = Self.page(ConsolePartyPages.party(Self.signedIn(session), view, names: consoleNames, extra: extra,
                                                          csrfToken: session.csrfToken))
        if let refusal { response.status = refusal.status }
        return response
    }

    /// The form as the API's JSON body: a number typed as one goes as a number,
    /// anything else as text (which the API's check refuses, saying what it wants);
    /// an empty optional field is left out, as the API takes it.
    static func startRequestJSON(party: PartyID, form: [String: String]) -> Data {
        func text(_ value: String) -> String {
            String(decoding: (try? JSONEncoder().encode(value)) ?? Data("\"\"".utf8), as: UTF8.self)
        }
        func number(_ value: String) -> String {
            value.wholeMatch(of: /-?[0-9]{1,40}/) != nil ? value : text(value)
        }
        var fields = ["\"partyID\": \(text(party.rawValue))", "\"route\": \(text(form["route"] ?? ""))",
                      "\"tickInterval\": \(number((form["tickInterval"] ?? "").trimmingCharacters(in: .whitespaces)))",
                      "\"followable\": \(form["followable"] == "on")"]
        for optional in ["timeLimit", "seed"] {
            let value = (form[optional] ?? "").trimmingCharacters(in: .whitespaces)
            if !value.isEmpty { fields.append("\"\(optional)\": \(number(value))") }
        }
        return Data("{\(fields.joined(separator: ", "))}".utf8)
    }
}
