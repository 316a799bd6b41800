import Foundation

/// The form that starts an adventure for a party: the API's fields, each with
/// its refusal beside it, worded as the API words it.
public struct ConsoleStartForm: Sendable {
    public static let fields = ["route", "tickInterval", "timeLimit", "seed", "followable"]

    public var partyID: String
    public var csrfToken: String
    /// Every route of the content: id and name.
    public var routes: [(id: String, name: String)]
    /// What was typed, by field (empty the first time).
    public var values: [String: String]
    /// Each refused field's refusal, by field.
    public var problems: [String: String]
    /// A refusal about the party, not a field (already on an adventure, say).
    public var partyProblem: String?

    public init(partyID: String, csrfToken: String, routes: [(id: String, name: String)], values: [String: String] = [:],
                problems: [String: String] = [:], partyProblem: String? = nil) {
        self.partyID = partyID
        self.csrfToken = csrfToken
        self.routes = routes
        self.values = values
        self.problems = problems
        self.partyProblem = partyProblem
    }

    public static func action(partyID: String) -> String { ConsolePaths.party(partyID) + "/adventures" }

    public var html: String {
        let e = ConsoleLayout.escape
        let chosen = values["route"] ?? routes.first?.id ?? ""
        let options = routes.map { route in
            #"<option value="\#(e(route.id))"\#(route.id == chosen ? " selected" : "")>\#(e(route.name))</option>"#
        }.joined()
        let party = partyProblem.map { #"<p class="error" id="start-error" role="alert">\#(e($0))</p>"# } ?? ""
        let followable = values["followable"] == "on" ? " checked" : ""
        return """
            <section aria-labelledby="start-title"><h2 id="start-title">Start an adventure</h2>
            <form method="post" action="\(Self.action(partyID: partyID))" id="start">
            \(ConsoleLayout.csrfField(csrfToken))
            \(party)
            <label for="route">Route</label>
            <select id="route" name="route"\(described("route"))>\(options)</select>\(problem("route"))
            <label for="tickInterval">Seconds between ticks</label>
            <input type="text" inputmode="numeric" id="tickInterval" name="tickInterval" value="\(e(values["tickInterval"] ?? "2"))" required\(described("tickInterval"))>\(problem("tickInterval"))
            <label for="timeLimit">Time limit in seconds <span class="note">(empty: 8 hours)</span></label>
            <input type="text" inputmode="numeric" id="timeLimit" name="timeLimit" value="\(e(values["timeLimit"] ?? ""))"\(described("timeLimit"))>\(problem("timeLimit"))
            <label for="seed">Seed <span class="note">(empty: random)</span></label>
            <input type="text" inputmode="numeric" id="seed" name="seed" value="\(e(values["seed"] ?? ""))"\(described("seed"))>\(problem("seed"))
            <p><input type="checkbox" id="followable" name="followable"\(followable)> <label for="followable" class="inline">Followable by players outside the party</label></p>
            <p><button type="submit">Start the adventure</button></p>
            </form></section>
            """
    }

    private func described(_ field: String) -> String {
        problems[field] == nil ? "" : #" aria-describedby="\#(field)-error" aria-invalid="true""#
    }

    private func problem(_ field: String) -> String {
        problems[field].map { #"<p class="error field-error" id="\#(field)-error">\#(ConsoleLayout.escape($0))</p>"# } ?? ""
    }
}
