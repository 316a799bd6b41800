import APNs
import APNsCurl
import ArgumentParser
import Foundation
import Metrics
import Server
import Vocabulary

/// `rangers push`: one push from the terminal, like the talk's curl example,
/// through the server's own APNs module.
struct PushCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "push",
        abstract: "Send one push to APNs (or to `rangers apns-sim`) and print the answer.",
        discussion: """
            --token sends to one device; --channel broadcasts a Live Activity update or end to every \
            device subscribed to a broadcast channel (iOS 18; see `rangers channels`). \
            Exit status: 0 delivered (for a broadcast: accepted), 1 refused by APNs or unreachable, 2 a \
            mistake found before sending (missing or unreadable key, a token that is not hex, a payload \
            over the limit).
            """
    )

    @Option(help: "The device token (hex): a Live Activity push token, push-to-start token, PTT or device token.")
    var token: String?

    @Option(help: "A broadcast channel id (base64, from `rangers channels create`) instead of --token: one push to every subscribed device.")
    var channel: String?

    @Option(help: "The app's bundle id; the topic is derived from it and the push type.")
    var bundleID: String = SampleApp.bundleID

    @Option(help: "liveactivity, pushtotalk or alert.")
    var pushType: PushKind = .liveactivity

    @Option(help: "Live Activity event: start, update or end.")
    var event: LiveActivityEvent = .update

    @Option(help: "5 or 10 (Push To Talk is always 10).")
    var priority: Int = 10

    @Option(help: "apns-expiration, unix seconds (0: deliver now or never; a channel without storage takes only 0).")
    var expiration: Int?

    @Option(help: "The content state as JSON, or @file.")
    var contentState: String?

    @Option(help: "With --event start: the attributes as JSON, or @file.")
    var attributes: String?

    @Option(help: "With --event start: the attributes' Swift type name.")
    var attributesType: String = "AdventureAttributes"

    @Option(help: "With --event start (iOS 18): a broadcast channel the new activity listens on, instead of asking for an update token.")
    var inputPushChannel: String?

    @Option(help: "aps timestamp, unix seconds (default: now).")
    var timestamp: Int?

    @Option(help: "Unix seconds after which the UI shows the content as outdated.")
    var staleDate: Int?

    @Option(help: "With --event end: unix seconds when the activity leaves the Lock Screen.")
    var dismissalDate: Int?

    @Option(help: "Higher sorts first on the Lock Screen.")
    var relevanceScore: Double?

    @Option(help: "Alert title: a key of the app's string catalog.")
    var alertTitleKey: String?

    @Option(help: "Alert body: a key of the app's string catalog.")
    var alertBodyKey: String?

    @Option(help: "An argument for the alert's %@ placeholders (repeat for more; used by title and body).")
    var alertArgs: [String] = []

    @Option(help: "Alert sound: a file in the app bundle, e.g. HeroDown.caf.")
    var sound: String?

    @Option(help: "The whole payload as JSON, or @file (for pushtotalk and alert; replaces the options above).")
    var payload: String?

    @OptionGroup var connection: APNsConnectionOptions

    enum PushKind: String, ExpressibleByArgument, CaseIterable {
        case liveactivity, pushtotalk, alert
    }

    enum LiveActivityEvent: String, ExpressibleByArgument, CaseIterable {
        case start, update, end
    }

    func run() async throws {
        switch (token, channel) {
        case (let token?, nil): try await push(to: token)
        case (nil, let channel?): try await broadcast(on: channel)
        default: throw UsageError("give either --token (one device) or --channel (a broadcast)")
        }
    }

    private func push(to token: String) async throws {
        let body = try makePayload()
        let request: APNsRequest = switch pushType {
        case .liveactivity:
            .liveActivity(deviceToken: token, bundleID: bundleID, priority: priority, expiration: expiration, payload: body)
        case .pushtotalk:
            .pushToTalk(deviceToken: token, bundleID: bundleID, payload: body)
        case .alert:
            .alert(deviceToken: token, bundleID: bundleID, priority: priority, expiration: expiration, payload: body)
        }
        do {
            try request.validate()
        } catch {
            throw UsageError(error.description)
        }
        let client = try connection.client()
        let delivery: APNsDelivery
        do {
            delivery = try await client.send(request)
        } catch {
            await client.shutdown()
            throw UsageError("\(error)")
        }
        await client.shutdown()

        let response = delivery.response
        print("status: \(response.map { String($0.status) } ?? "no answer")")
        if let id = response?.apnsID { print("apns-id: \(id)") }
        if let id = response?.uniqueID { print("apns-unique-id: \(id)") }
        switch delivery.outcome {
        case .delivered:
            return
        case .tokenNoLongerValid(let reason, let since):
            print("reason: \(reason)" + (since.map { " (token invalid since \(ISO8601DateFormatter().string(from: $0)))" } ?? ""))
        case .retryLater(let reason), .rejected(let reason):
            print("reason: \(reason)")
        }
        if delivery.attempts > 1 { print("attempts: \(delivery.attempts)") }
        throw ExitCode(1)
    }

    private func broadcast(on channel: String) async throws {
        guard pushType == .liveactivity else { throw UsageError("--channel broadcasts Live Activity pushes: leave out --push-type \(pushType.rawValue)") }
        guard event != .start else {
            throw UsageError("a broadcast cannot start a Live Activity: send the push-to-start to a device (--token) with input-push-channel")
        }
        let request = APNsBroadcastRequest(channelID: BroadcastChannelID(channel), bundleID: bundleID, priority: priority,
                                           expiration: expiration, payload: try makePayload())
        do {
            try request.validate()
        } catch {
            throw UsageError(error.description)
        }
        let client = try connection.client()
        let answer: APNsChannelAnswer<Void>
        do {
            answer = try await client.broadcast(request)
        } catch {
            await client.shutdown()
            throw UsageError("\(error)")
        }
        await client.shutdown()
        try ChannelAnswerPrinter.finish(answer)
    }

    private func makePayload() throws -> Data {
        if let payload { return try JSONArgument.data(payload, name: "--payload") }
        guard pushType == .liveactivity else {
            throw UsageError("--payload is required for \(pushType.rawValue) pushes")
        }
        var aps: [String: Any] = [
            "event": event.rawValue,
            "timestamp": timestamp ?? Int(Date().timeIntervalSince1970),
            "content-state": try contentState.map { try JSONArgument.object($0, name: "--content-state") } ?? [:],
        ]
        if let staleDate { aps["stale-date"] = staleDate }
        if let relevanceScore { aps["relevance-score"] = relevanceScore }
        if let dismissalDate {
            guard event == .end else { throw UsageError("--dismissal-date goes with --event end") }
            aps["dismissal-date"] = dismissalDate
        }
        if alertTitleKey != nil || alertBodyKey != nil || sound != nil {
            var alert: [String: Any] = [:]
            func localized(_ key: String) -> [String: Any] {
                alertArgs.isEmpty ? ["loc-key": key] : ["loc-key": key, "loc-args": alertArgs]
            }
            if let alertTitleKey { alert["title"] = localized(alertTitleKey) }
            if let alertBodyKey { alert["body"] = localized(alertBodyKey) }
            if let sound { alert["sound"] = sound }
            aps["alert"] = alert
        }
        if let inputPushChannel {
            guard event == .start else { throw UsageError("--input-push-channel goes with --event start") }
            guard BroadcastChannelID.isWellFormed(inputPushChannel) else {
                throw UsageError(InvalidBroadcastChannelID(text: inputPushChannel).description)
            }
        }
        if event == .start {
            guard let attributes else { throw UsageError("--event start needs --attributes (push-to-start)") }
            guard aps["alert"] != nil else { throw UsageError("--event start needs an alert (--alert-title-key …)") }
            aps["attributes-type"] = attributesType
            aps["attributes"] = try JSONArgument.object(attributes, name: "--attributes")
            // The new activity takes updates on the channel, or asks for a token of its own.
            if let inputPushChannel { aps["input-push-channel"] = inputPushChannel } else { aps["input-push-token"] = 1 }
        }
        return try JSONSerialization.data(withJSONObject: ["aps": aps], options: [.sortedKeys, .withoutEscapingSlashes])
    }
}

/// How to reach APNs and sign for it, shared by the commands that send.
struct APNsConnectionOptions: ParsableArguments {
    @Option(name: .customLong(ServeSettings.apnsKeyFile.flag!), help: ArgumentHelp(ServeSettings.apnsKeyFile))
    var keyFile: String?

    @Option(name: .customLong(ServeSettings.apnsKeyID.flag!), help: ArgumentHelp(ServeSettings.apnsKeyID))
    var keyID: String?

    @Option(name: .customLong(ServeSettings.apnsTeamID.flag!), help: ArgumentHelp(ServeSettings.apnsTeamID))
    var teamID: String?

    @Option(name: .customLong(ServeSettings.apnsEnvironment.flag!),
            help: ArgumentHelp(ServeSettings.apnsEnvironment.meaning + " (or $APNS_ENVIRONMENT; `push` defaults to sandbox, `serve` needs it said)"))
    var environment: String?

    @Option(name: .customLong(ServeSettings.apnsURL.flag!), help: ArgumentHelp(ServeSettings.apnsURL))
    var apnsURL: String?

    /// `--apns-url`, else `$APNS_URL`.
    var endpointURL: String? { ServeSettings.apnsURL.value(flag: apnsURL) }

    @Option(help: "Where broadcast channels are managed (default: Apple's management host for --environment, or --apns-url), e.g. https://127.0.0.1:2195 for `rangers apns-sim`.")
    var managementURL: String?

    @Option(help: "A PEM file of certificates to trust besides the system's (for a private or test endpoint).")
    var caFile: String?

    /// `defaultEnvironment` is Apple's environment when none is given; nil makes
    /// one required (unless --apns-url names the endpoint itself).
    func client(metrics: any MetricsFactory = MetricsSystem.factory, defaultEnvironment: AppleEnvironment? = .sandbox) throws -> APNsClient {
        try endpoint(metrics: metrics, defaultEnvironment: defaultEnvironment).client
    }

    func endpoint(metrics: any MetricsFactory = MetricsSystem.factory, defaultEnvironment: AppleEnvironment? = .sandbox) throws -> APNsEndpoint {
        guard let keyFile = ServeSettings.apnsKeyFile.value(flag: keyFile) else {
            throw UsageError("no key: pass --key-file or set APNS_KEY_FILE")
        }
        guard let keyID = ServeSettings.apnsKeyID.value(flag: keyID) else { throw UsageError("no key id: pass --key-id or set APNS_KEY_ID") }
        guard let teamID = ServeSettings.apnsTeamID.value(flag: teamID) else {
            throw UsageError("no team id: pass --team-id or set APNS_TEAM_ID")
        }
        let key: APNsSigningKey
        do {
            key = try APNsSigningKey(contentsOf: URL(fileURLWithPath: keyFile), keyID: keyID, teamID: teamID)
        } catch {
            throw UsageError("\(error)")
        }
        let target = try target(defaultEnvironment: defaultEnvironment)
        if let caFile, !FileManager.default.isReadableFile(atPath: caFile) {
            throw UsageError("cannot read the CA file \(caFile)")
        }
        do {
            return try .remote(target, key: key, caFile: caFile.map { URL(fileURLWithPath: $0) }, metrics: metrics)
        } catch {
            throw UsageError("\(error)")
        }
    }

    enum AppleEnvironment: String { case sandbox, production }

    /// Apple's environment as --environment or $APNS_ENVIRONMENT name it, else
    /// `defaultEnvironment`; with --apns-url alone, sandbox (only channel management's default host depends on it).
    func appleEnvironment(default defaultEnvironment: AppleEnvironment?) throws -> AppleEnvironment {
        guard let named = ServeSettings.apnsEnvironment.value(flag: environment) else {
            guard let chosen = defaultEnvironment ?? (endpointURL == nil ? nil : .sandbox) else {
                throw UsageError("no APNs environment: pass --environment sandbox|production or set APNS_ENVIRONMENT")
            }
            return chosen
        }
        guard let chosen = AppleEnvironment(rawValue: named) else {
            throw UsageError("--environment (or APNS_ENVIRONMENT) must be sandbox or production, not '\(named.prefix(40))'")
        }
        return chosen
    }

    /// Apple's sandbox or production hosts, or the URLs given (a management URL
    /// alone keeps Apple's push host for --environment).
    private func target(defaultEnvironment: AppleEnvironment?) throws -> APNsEnvironment {
        for (name, value) in [("--apns-url", endpointURL), ("--management-url", managementURL)] {
            guard let value else { continue }
            guard let url = URL(string: value), url.scheme == "https", url.host != nil else {
                throw UsageError("\(name) must be an https URL, e.g. https://127.0.0.1:2197")
            }
        }
        let apple: APNsEnvironment = switch try appleEnvironment(default: defaultEnvironment) {
        case .sandbox: .sandbox
        case .production: .production
        }
        if endpointURL == nil, managementURL == nil { return apple }
        return .custom(endpointURL ?? apple.baseURL, management: managementURL)
    }
}

enum JSONArgument {
    /// A JSON text, or `@path` to read it from a file.
    static func data(_ argument: String, name: String) throws -> Data {
        let data: Data
        if argument.hasPrefix("@") {
            let path = String(argument.dropFirst())
            guard let contents = FileManager.default.contents(atPath: path) else {
                throw UsageError("\(name): cannot read \(path)")
            }
            data = contents
        } else {
            data = Data(argument.utf8)
        }
        guard (try? JSONSerialization.jsonObject(with: data)) is [String: Any] else {
            throw UsageError("\(name) is not a JSON object")
        }
        return data
    }

    static func object(_ argument: String, name: String) throws -> [String: Any] {
        try JSONSerialization.jsonObject(with: data(argument, name: name)) as! [String: Any]
    }
}
