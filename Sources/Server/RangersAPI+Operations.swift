import Foundation
import Hummingbird
import Metrics
import Prometheus

extension RangersAPI {
    /// Healthy when the database answers a read. A failing disk or a locked file
    /// shows as 503, which a load balancer takes as "not now" rather than "broken
    /// request". Says which node this is, what it holds and how many it sees.
    func health() async throws -> Response {
        do {
            let migrations = try await store.appliedMigrations()
            return try JSONCoding.response(HealthView(
                status: "ok", migrations: migrations.count, node: store.node, adventuresHeld: adventuresHeld.count,
                liveNodes: try await store.liveNodes(), apns: configuration.apns))
        } catch {
            throw APIError(.serviceUnavailable, "unavailable", "the database does not answer")
        }
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
