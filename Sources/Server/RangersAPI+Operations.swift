import Foundation
import Hummingbird
import Metrics
import Prometheus
import Services
import Store

extension RangersAPI {
    /// The process lives: always 200, at once. Says which node this is, what it
    /// holds and where its pushes go; the database's figures only when it answers
    /// within a second (whether the node can work is `/readyz`'s to say).
    func health() async throws -> Response {
        let store = store
        let read = try? await ServiceClock.continuous.value(within: .seconds(1)) {
            (try await store.appliedMigrations().count, try await store.liveNodes())
        }
        return try JSONCoding.response(HealthView(
            status: "ok", migrations: read?.0, node: store.node, adventuresHeld: adventuresHeld.count,
            liveNodes: read?.1, apns: configuration.apns))
    }

    /// Whether this node can do its work now: its database answers (within two
    /// seconds), its heartbeat on a shared database is current, and APNs answers
    /// its pushes. Otherwise 503 `unavailable`, its message naming each failing
    /// check and why, with `Retry-After`: a load balancer reads it as "not this
    /// node, not now". Loops in trouble that do not stop the node's work (the
    /// followers' channel keeper) are listed when ready, without making it unready.
    func readiness() async throws -> Response {
        var checks: [ReadinessView.Check] = []
        let store = store
        checks.append(await store.answers(within: .seconds(2)) ? .init(name: "database", ok: true)
                                      : .init(name: "database", ok: false, reason: "the database does not answer within 2 s"))
        checks.append(store.heartbeatIsCurrent ? .init(name: "heartbeat", ok: true)
                      : .init(name: "heartbeat", ok: false,
                              reason: "this node's heartbeat on the database is older than its lease; other nodes take its adventures"))
        let (apns, since) = deliveryHealth.status
        let seconds = Int(now().timeIntervalSince(since))
        switch apns {
        case .available: checks.append(.init(name: "apns", ok: true))
        case .reconnecting: checks.append(.init(name: "apns", ok: false, reason: "APNs has answered try later or not at all for \(seconds) s"))
        case .unavailable: checks.append(.init(name: "apns", ok: false, reason: "this node is stopping"))
        }
        let troubles = serviceHealth.current.sorted { $0.key < $1.key }.map { loop, trouble in
            ReadinessView.Trouble(loop: loop, reason: trouble.reason, failures: trouble.failures,
                                  sinceSeconds: Int(now().timeIntervalSince(trouble.since)))
        }
        let failing = checks.filter { !$0.ok }
        guard failing.isEmpty else {
            var error = APIError(.serviceUnavailable, "unavailable",
                                 "not ready: " + failing.map { "\($0.name): \($0.reason ?? "failing")" }.joined(separator: "; "))
            error.headers[.retryAfter] = "5"
            throw error
        }
        return try JSONCoding.response(ReadinessView(status: "ready", node: store.node, checks: checks, troubles: troubles))
    }

    /// Prometheus text exposition of this application's registry, with the node's
    /// id and the live nodes it sees read at the scrape.
    func metricsText() async -> Response {
        let factory = PrometheusMetricsFactory(registry: metrics)
        Gauge(label: "rangers_node_info", dimensions: [("node", store.node)], factory: factory).record(1)
        // 1 on a node whose pushes reach no phone: worth an alert wherever it is not expected.
        Gauge(label: "rangers_apns_simulator", factory: factory).record(configuration.apns == .simulator ? 1 : 0)
        if let live = try? await store.liveNodes() {
            Gauge(label: "rangers_live_nodes", factory: factory).record(live)
        }
        return Response(status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
                        body: .init(byteBuffer: ByteBuffer(bytes: metrics.emitToBuffer())))
    }

    func openAPIDocument() throws -> Response {
        guard let document = OpenAPIDocument.text else {
            throw APIError(.notFound, "notFound", "the OpenAPI document is not installed beside the server")
        }
        return Response(status: .ok, headers: [.contentType: "application/yaml; charset=utf-8"],
                        body: .init(byteBuffer: ByteBuffer(string: document)))
    }
}

/// The bundled openapi.yaml. Looked up by hand rather than through `Bundle.module`,
/// whose accessor stops the process when the resource folder is missing (a binary
/// copied without it); here a missing document is a 404, not a crash.
public enum OpenAPIDocument {
    static let resourcePath = "EmojiRangers_Server.resources/openapi.yaml"

    public static let text: String? = {
        var candidates = [Bundle.main.bundleURL.appendingPathComponent(resourcePath)]
        if let executable = Bundle.main.executableURL {
            candidates.append(executable.deletingLastPathComponent().appendingPathComponent(resourcePath))
        }
        // In a checkout (`swift run`, the tests): the document beside this file.
        candidates.append(URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("openapi.yaml"))
        return candidates.lazy.compactMap { try? String(contentsOf: $0, encoding: .utf8) }.first
    }()
}

extension RangersStore {
    /// Whether the database answers a read within `limit`: a database that is away
    /// must not hold the question either.
    func answers(within limit: Duration) async -> Bool {
        let answered = try? await ServiceClock.continuous.value(within: limit) { [self] in try await appliedMigrations().count }
        return answered != nil
    }
}
