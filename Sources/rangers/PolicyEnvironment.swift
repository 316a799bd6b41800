import Foundation
import PushPolicy

/// The push policy's budgets and dates from `RANGERS_POLICY_*` variables, each
/// named after its field: `highPriorityPerHour` is `RANGERS_POLICY_HIGH_PRIORITY_PER_HOUR`.
/// A variable that is not set keeps the field's default.
enum PolicyEnvironment {
    static var fields: [(name: String, keyPath: WritableKeyPath<PushPolicyConfiguration, Int>)] { [
        ("highPriorityPerHour", \.highPriorityPerHour),
        ("highPriorityPerHourWithFrequentUpdates", \.highPriorityPerHourWithFrequentUpdates),
        ("routineSpacing", \.routineSpacing),
        ("routineSpacingWithFrequentUpdates", \.routineSpacingWithFrequentUpdates),
        ("staleAfterMissedUpdates", \.staleAfterMissedUpdates),
        ("minimumStaleSeconds", \.minimumStaleSeconds),
        ("dismissalDelay", \.dismissalDelay),
    ] }

    static func variable(for field: String) -> String {
        "RANGERS_POLICY_" + field.reduce(into: "") { name, character in
            if character.isUppercase { name += "_" }
            name += character.uppercased()
        }
    }

    /// Refuses a value that is not a whole number, or a combination the policy
    /// cannot work with, naming the variables.
    static func configuration(
        from environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws(UsageError) -> PushPolicyConfiguration {
        var configuration = PushPolicyConfiguration.standard
        for field in fields {
            let name = variable(for: field.name)
            guard let text = environment[name] else { continue }
            guard let value = Int(text.trimmingCharacters(in: .whitespaces)) else {
                throw UsageError("\(name): '\(text.prefix(40))' is not a whole number")
            }
            configuration[keyPath: field.keyPath] = value
        }
        let problems = configuration.problems
        guard problems.isEmpty else {
            // The policy names its fields; a user set variables. Longest names first,
            // so one field's name never eats part of a longer one.
            let named = problems.map { problem in
                fields.sorted { $0.name.count > $1.name.count }.reduce(problem) {
                    $0.replacingOccurrences(of: $1.name, with: variable(for: $1.name))
                }
            }
            throw UsageError("invalid push policy: " + named.joined(separator: "; "))
        }
        return configuration
    }
}
