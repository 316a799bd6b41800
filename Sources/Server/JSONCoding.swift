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

    /// A decoder for request bodies whose checked fields (see RequestFields.swift)
    /// know the content's heroes and routes.
    static func requestDecoder(knowing vocabulary: ContentVocabulary) -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        decoder.userInfo[ContentVocabulary.userInfoKey] = vocabulary
        return decoder
    }

    /// Reads at most `limit` bytes of the body and decodes it. A declared length
    /// over the limit is refused before anything is read; a body that is not a
    /// JSON object is `malformedJSON`, a field it cannot take `invalidField`.
    static func decode<Body: Decodable>(_ type: Body.Type, from request: Request, limit: Int,
                                        with decoder: JSONDecoder) async throws -> Body {
        let data = try await body(of: request, limit: limit)
        guard !data.isEmpty else { throw APIError.malformedJSON("the request needs a JSON object as its body") }
        do {
            return try decoder.decode(Body.self, from: data)
        } catch let error as DecodingError {
            throw APIError(error)
        }
    }

    /// The body's bytes, at most `limit` of them: a declared length over it is
    /// refused before anything is read, a longer stream as soon as it passes it.
    static func body(of request: Request, limit: Int) async throws -> Data {
        if let declared = request.headers[.contentLength].flatMap({ Int($0) }), declared > limit {
            throw APIError.bodyTooLarge(limit: limit)
        }
        var request = request
        do {
            return Data(try await request.collectBody(upTo: limit).readableBytesView)
        } catch let error as any HTTPResponseError where error.status == .contentTooLarge {
            throw APIError.bodyTooLarge(limit: limit)
        }
    }

    static func response(_ value: some Encodable, status: HTTPResponse.Status = .ok) throws -> Response {
        let body = try encoder.encode(value)
        return Response(status: status, headers: [.contentType: "application/json; charset=utf-8"],
                        body: .init(byteBuffer: ByteBuffer(bytes: body)))
    }
}
