import Foundation
import Store

/// Whether phones are being reached: APNs' answers over the last hour, tokens
/// invalidated, retries, broadcast channels against Apple's limit.
public enum ConsoleDeliveryPage {
    public static let refreshSeconds = 10

    /// `nodeStatus`: how this node's dispatcher last found APNs, and since when.
    public static func page(_ session: ConsoleLayout.SignedIn, _ reading: DeliveryHealthReading, channelLimit: Int,
                            nodeStatus: (status: String, since: Date)) -> String {
        let e = ConsoleLayout.escape
        let total = reading.answers.reduce(0) { $0 + $1.count }
        let rows = reading.answers.map { answer in
            let status = answer.status.map(String.init) ?? "no answer"
            return """
                <tr data-status="\(answer.status.map(String.init) ?? "")" data-reason="\(e(answer.reason ?? ""))"><td>\(status)</td>\
                <td>\(e(answer.reason ?? "–"))</td><td class="count">\(answer.count)</td></tr>
                """
        }.joined(separator: "\n")
        let share = channelLimit > 0 ? Double(reading.channelsInUse) / Double(channelLimit) * 100 : 0
        return ConsoleLayout.page(title: "Delivery health", current: ConsolePaths.delivery, signedIn: session,
                                  refresh: refreshSeconds, body: """
            <p class="note">Over the last hour, on every node (this page loads itself again every \(refreshSeconds) s).</p>
            <ul id="figures">
            <li>Answers from APNs: <strong id="answered">\(total)</strong></li>
            <li>Tokens APNs called invalid: <strong id="invalidated">\(reading.tokensInvalidated)</strong></li>
            <li>Pushes that needed more than one attempt: <strong id="retried">\(reading.retried)</strong></li>
            <li>Followers' broadcast channels in use: <strong id="channels">\(reading.channelsInUse)</strong> of Apple's \
            \(channelLimit.formatted(.number.grouping(.automatic).locale(Locale(identifier: "en_US")))) \
            (\(String(format: "%.1f", share)) %)</li>
            <li>This node's dispatcher finds APNs <strong id="node-status">\(e(nodeStatus.status))</strong> since \
            \(ConsolePages.readable(nodeStatus.since)) UTC</li>
            </ul>
            <h2>APNs' answers by reason</h2>
            \(reading.answers.isEmpty ? #"<p class="note" id="no-answers">No push answered in the last hour.</p>"#
                : ConsolePartyPages.table("answers", ["Status", "Reason", "Pushes"], rows))
            """)
    }
}
