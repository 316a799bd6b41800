import Foundation
import HTTPTypes
import Hummingbird
import LiveView
import Logging
import ServiceLifecycle
import Store
import Synchronization
import Vocabulary

/// `POST /v1/adventures/{id}/live-links`: how long the link should last.
struct CreateLiveLinkRequest: Decodable {
    var expiresInSeconds: Int?

    private enum CodingKeys: String, CodingKey { case expiresInSeconds }

    // May be left out, not null, as the document says; the range is the link's.
    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        guard container.contains(.expiresInSeconds) else { return }
        let seconds = try container.decode(Checked<WholeNumber<Int>>.self, forKey: .expiresInSeconds).wrappedValue
        let range = LiveLinkGrant.lifetimes
        guard range.contains(seconds) else {
            throw DecodingError.dataCorruptedError(forKey: .expiresInSeconds, in: container,
                                                   debugDescription: "must be \(range.lowerBound)…\(range.upperBound), not \(seconds)")
        }
        expiresInSeconds = seconds
    }
}

struct LiveLinkView: Encodable {
    var adventureID: AdventureID
    /// The page, as the caller reached this server (Host, or X-Forwarded-Host and -Proto from a proxy).
    var url: String
    /// The same without scheme and host, for a caller that knows better where the page is.
    var path: String
    /// The page's Server-Sent Events with the same token, for a script that reads the stream itself.
    var eventsPath: String
    var expiresAt: Date
}

extension RangersAPI {
    /// A signed link to the adventure's live page, for the game master or a member:
    /// a browser opening a page cannot send the bearer key, so the link carries a
    /// token that proves who asked, for which adventure, until when.
    func createLiveLink(_ request: Request, adventure id: PathParameter<AdventureID>) async throws -> Response {
        let (adventure, caller) = try await readableAdventure(request, id: id)
        let lifetime = try await liveLinkLifetime(request)
        let expiresAt = Int(now().timeIntervalSince1970) + lifetime
        let viewer: LiveLinkGrant.Viewer = switch caller {
        case .gameMaster: .gameMaster
        case .player(let player): .player(player.id)
        }
        let token = liveLinks.token(for: LiveLinkGrant(adventure: adventure.id, expiresAt: expiresAt, viewer: viewer))
        let page = "/live/adventures/\(Self.pathSegment(adventure.id.rawValue))"
        let path = "\(page)?token=\(token)"
        let view = LiveLinkView(adventureID: adventure.id, url: origin(of: request) + path, path: path,
                                eventsPath: "\(page)/events?token=\(token)",
                                expiresAt: Date(timeIntervalSince1970: TimeInterval(expiresAt)))
        return try JSONCoding.response(view, status: .created)
    }

    /// The page: a frame its stream fills. Shows nothing without a valid link.
    func livePage(_ request: Request, adventure id: PathParameter<AdventureID>) async throws -> Response {
        let (grant, token) = try await liveGrant(request, adventure: id)
        let html = LivePage.html(adventure: grant.adventure,
                                 streamURL: "\(Self.pathSegment(grant.adventure.rawValue))/events?token=\(token)")
        var headers = Self.liveHeaders
        headers[.contentType] = "text/html; charset=utf-8"
        headers[.contentSecurityPolicy] = LivePage.contentSecurityPolicy
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(string: html)))
    }

    /// The page's Server-Sent Events, from the cursor the browser says it has
    /// (`Last-Event-ID`, or `lastEventId` in the query when the page reconnects by
    /// hand), until the link expires, the browser leaves or the server stops; with
    /// `follow=false`, only what there is now.
    func liveEvents(_ request: Request, context: some RequestContext, adventure id: PathParameter<AdventureID>) async throws -> Response {
        let (grant, _) = try await liveGrant(request, adventure: id)
        let presented = request.headers[Self.lastEventID] ?? request.uri.queryParameters["lastEventId"].map(String.init)
        let cursor: LiveCursor
        if let presented, !presented.isEmpty {
            guard let parsed = LiveCursor(presented) else {
                throw APIError.invalidField("lastEventId", "'\(presented.prefix(60))' is not an event id this server sent")
            }
            cursor = parsed
        } else {
            cursor = .start
        }
        let follow: Bool
        switch request.uri.queryParameters["follow"].map(String.init) {
        case nil, "true": follow = true
        case "false": follow = false
        case let other?: throw APIError.invalidField("follow", "must be true or false, not '\(other.prefix(20))'")
        }
        let stream = LiveStream(store: store, content: content, adventure: grant.adventure, linkExpiresAt: grant.expiresAt,
                                now: now, endpoint: endpointRecords)
        let logger = context.logger
        var headers = Self.liveHeaders
        headers[.contentType] = "text/event-stream; charset=utf-8"
        // nginx passes the stream on as it comes instead of buffering it.
        headers[Self.accelBuffering] = "no"
        return Response(status: .ok, headers: headers, body: ResponseBody { writer in
            let stop = StreamStop()
            do {
                try await withGracefulShutdownHandler {
                    try await stream.run(from: cursor, follow: follow, isStopping: { stop.isStopped }) { text in
                        try await writer.write(ByteBuffer(string: text))
                    }
                } onGracefulShutdown: {
                    stop.stop()
                }
            } catch is CancellationError {
            } catch {
                logger.debug("a live stream ended", metadata: ["adventure": "\(grant.adventure)", "why": "\(error)"])
            }
            try? await writer.finish(nil)
        })
    }

    // MARK: - Links

    /// Checks the link before anything else: a missing, malformed, forged or
    /// expired token is a 401, a link to another adventure a 403, and so is a
    /// player's link once they are no longer in the party. The token comes back
    /// for the page's own stream.
    private func liveGrant(_ request: Request, adventure id: PathParameter<AdventureID>) async throws -> (LiveLinkGrant, String) {
        guard let token = request.uri.queryParameters["token"].map(String.init), !token.isEmpty else {
            throw APIError.unauthorized("open the live page with a link from POST /v1/adventures/{id}/live-links")
        }
        let adventure = try id.checked()
        let grant: LiveLinkGrant
        do {
            grant = try liveLinks.grant(from: token, for: adventure, at: Int(now().timeIntervalSince1970))
        } catch .otherAdventure {
            throw APIError.forbidden(LiveLinkRefusal.otherAdventure.description)
        } catch {
            throw APIError.unauthorized(error.description)
        }
        if case .player(let player) = grant.viewer {
            try await requireReader(player, of: try await store.adventure(grant.adventure))
        }
        return (grant, token)
    }

    private func liveLinkLifetime(_ request: Request) async throws -> Int {
        let body = try await JSONCoding.body(of: request, limit: configuration.maximumRequestBodyBytes)
        guard !body.isEmpty else { return LiveLinkGrant.defaultLifetime }
        let asked: CreateLiveLinkRequest
        do {
            asked = try decoder.decode(CreateLiveLinkRequest.self, from: body)
        } catch let error as DecodingError {
            throw APIError(error)
        }
        return asked.expiresInSeconds ?? LiveLinkGrant.defaultLifetime
    }

    private func origin(of request: Request) -> String {
        let forwardedHost = request.headers[Self.forwardedHost].flatMap { $0.split(separator: ",").first }
            .map { $0.trimmingCharacters(in: .whitespaces) }
        let host = forwardedHost ?? request.head.authority ?? "\(configuration.host):\(configuration.port)"
        let scheme = request.headers[Self.forwardedProto].flatMap { $0.split(separator: ",").first }
            .map { $0.trimmingCharacters(in: .whitespaces) }.flatMap { ["http", "https"].contains($0) ? $0 : nil } ?? "http"
        return "\(scheme)://\(host)"
    }

    private static func pathSegment(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: .alphanumerics.union(CharacterSet(charactersIn: "-._~"))) ?? text
    }

    /// The link's token is in the address: neither cached nor sent on as a referrer.
    private static let liveHeaders: HTTPFields = [
        .cacheControl: "no-store", HTTPField.Name("Referrer-Policy")!: "no-referrer", HTTPField.Name("X-Content-Type-Options")!: "nosniff",
    ]
    private static let lastEventID = HTTPField.Name("Last-Event-ID")!
    private static let accelBuffering = HTTPField.Name("X-Accel-Buffering")!
    private static let forwardedHost = HTTPField.Name("X-Forwarded-Host")!
    private static let forwardedProto = HTTPField.Name("X-Forwarded-Proto")!
}

/// Tells a stream the server is stopping: it ends within its poll interval, so a
/// graceful stop is not held up by pages left open.
final class StreamStop: Sendable {
    private let stopped = Atomic<Bool>(false)

    var isStopped: Bool { stopped.load(ordering: .acquiring) }

    func stop() { stopped.store(true, ordering: .releasing) }
}
