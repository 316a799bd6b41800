/// One message of a `text/event-stream` (the WHATWG HTML standard's Server-Sent
/// Events): an optional id (what the browser sends back as `Last-Event-ID` when it
/// reconnects), an event name and its data.
public struct ServerSentEvent: Hashable, Sendable {
    public var id: String?
    public var event: String?
    public var data: String

    public init(id: String? = nil, event: String? = nil, data: String) {
        self.id = id
        self.event = event
        self.data = data
    }

    /// As it goes on the wire. A line break inside the data becomes one more
    /// `data:` line (the browser joins them with "\n"); an id or event name with a
    /// line break would end the field early, so it loses it.
    public var text: String {
        var text = ""
        if let id { text += "id: \(Self.oneLine(id))\n" }
        if let event { text += "event: \(Self.oneLine(event))\n" }
        for line in data.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline) {
            text += "data: \(line)\n"
        }
        return text + "\n"
    }

    /// How long the browser waits before reconnecting, for the rest of the stream.
    public static func retry(milliseconds: Int) -> String { "retry: \(milliseconds)\n\n" }

    /// A comment: the browser ignores it; proxies see traffic.
    public static func comment(_ text: String) -> String { ": \(oneLine(text))\n\n" }

    private static func oneLine(_ text: String) -> String {
        String(text.filter { !$0.isNewline && $0 != "\0" })
    }
}
