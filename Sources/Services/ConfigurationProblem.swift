/// One unusable setting, named as its configuration spells it, with what is wrong.
public struct ConfigurationProblem: Hashable, Sendable, CustomStringConvertible {
    /// The setting's name as `ServerConfiguration` spells it.
    public var setting: String
    public var message: String

    public init(setting: String, message: String) {
        self.setting = setting
        self.message = message
    }

    public var description: String { "\(setting): \(message)" }
}
