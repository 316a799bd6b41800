import Foundation
import Hummingbird

/// The API's JSON both ways: ISO 8601 dates, sorted keys (stable bodies for tests
/// and diffs), and request bodies read within the size limit and decoded with
/// errors that name the field.
enum JSONCoding {
    static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        return encoder
    }()

    static let decoder: JSONDecoder = {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return decoder
    }()

    /// Reads at most `limit` bytes of the body and decodes it. A declared length
    /// over the limit is refused before anything is read.
    static func decode<Body: Decodable>(_ type: Body.Type, from request: Request, limit: Int) async throws -> Body {
        if let declared = request.headers[.contentLength].flatMap({ Int($0) }), declared > limit {
            throw APIError.bodyTooLarge(limit: limit)
        }
        var request = request
        let buffer: ByteBuffer
        do {
            buffer = try await request.collectBody(upTo: limit)
        } catch let error as any HTTPResponseError where error.status == .contentTooLarge {
            throw APIError.bodyTooLarge(limit: limit)
        }
        guard buffer.readableBytes > 0 else { throw APIError.malformedJSON("the request needs a JSON object as its body") }
        let data = Data(buffer.readableBytesView)
        do {
            return try decoder.decode(Body.self, from: data)
        } catch let error as DecodingError {
            throw APIError(error)
        }
    }

    static func response(_ value: some Encodable, status: HTTPResponse.Status = .ok) throws -> Response {
        let body = try encoder.encode(value)
        return Response(status: status, headers: [.contentType: "application/json; charset=utf-8"],
                        body: .init(byteBuffer: ByteBuffer(bytes: body)))
    }
}
