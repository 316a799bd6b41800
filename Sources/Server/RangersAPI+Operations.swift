import Foundation
import Hummingbird

extension RangersAPI {
    /// Healthy when the database answers a read. A failing disk or a locked file
    /// shows as 503, which a load balancer takes as "not now" rather than "broken request".
    func health() async throws -> Response {
        do {
            let migrations = try await store.appliedMigrations()
            return try JSONCoding.response(HealthView(status: "ok", migrations: migrations.count))
        } catch {
            throw APIError(.serviceUnavailable, "unavailable", "the database does not answer")
        }
    }

    /// Prometheus text exposition of this application's registry.
    func metricsText() -> Response {
        Response(status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
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
