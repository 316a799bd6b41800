import Foundation

/// The `alert` of a Live Activity push: lights up the screen and, with a
/// sound, plays it. Required for `start`, optional for `update` and `end`.
public struct Alert: Codable, Hashable, Sendable {
    public var title: AlertText
    public var body: AlertText
    /// A sound file in the app bundle, e.g. "HeroDown.caf"; omitted plays the default.
    public var sound: String?

    public init(title: AlertText, body: AlertText, sound: String? = nil) {
        self.title = title
        self.body = body
        self.sound = sound
    }
}

/// An alert's title or body: either text as is, or a key of the app's string
/// tables that the phone localizes, with values for its `%@` placeholders.
/// Encoded as a JSON string, or as `{"loc-key": …, "loc-args": […]}`.
public enum AlertText: Codable, Hashable, Sendable {
    case plain(String)
    case localized(key: String, args: [String] = [])

    private enum CodingKeys: String, CodingKey {
        case key = "loc-key"
        case args = "loc-args"
    }

    public init(from decoder: any Decoder) throws {
        if let text = try? decoder.singleValueContainer().decode(String.self) {
            self = .plain(text)
            return
        }
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self = .localized(
            key: try container.decode(String.self, forKey: .key),
            args: try container.decodeIfPresent([String].self, forKey: .args) ?? [])
    }

    public func encode(to encoder: any Encoder) throws {
        switch self {
        case .plain(let text):
            var container = encoder.singleValueContainer()
            try container.encode(text)
        case .localized(let key, let args):
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(key, forKey: .key)
            // A key without placeholders needs no arguments; leaving the empty
            // list out saves bytes toward the 4 KB limit.
            if !args.isEmpty {
                try container.encode(args, forKey: .args)
            }
        }
    }
}
