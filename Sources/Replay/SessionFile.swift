import Catalog
import Crypto
import Foundation

/// A saved session as one self-contained JSON file:
///
///     {"checksum": "sha256:…", "format": "emoji-rangers-session", "session": {…}, "version": 1}
///
/// The checksum is SHA-256 over the session re-encoded with sorted keys and no
/// extra whitespace, so re-indenting the file keeps it valid and editing a value
/// does not. A reader refuses a version newer than it knows.
public enum SessionFile {
    public static let format = "emoji-rangers-session"
    public static let version = 1

    private struct Envelope: Codable {
        var format: String
        var version: Int
        var checksum: String
        var session: SavedSession
    }

    public static func encode(_ session: SavedSession) throws -> Data {
        let envelope = Envelope(format: format, version: version, checksum: try checksum(of: session), session: session)
        return try JSONEncoder.sorted.encode(envelope) + Data("\n".utf8)
    }

    /// The session in `data`, checked: the format and version, every field, the
    /// content snapshot against its hash and the whole against the checksum.
    public static func decode(_ data: Data) throws(SessionFileError) -> SavedSession {
        guard !data.isEmpty else { throw .invalid("the file is empty") }
        let object: Any
        do {
            object = try JSONSerialization.jsonObject(with: data)
        } catch {
            throw .invalid("is not valid JSON, perhaps cut short: \(describe(error))")
        }
        guard let fields = object as? [String: Any] else {
            throw .foreign("the file is not a JSON object, so not a saved session (expected {\"format\": \"\(format)\", …})")
        }
        guard let found = fields["format"] else {
            throw .foreign("field 'format' is missing: expected \"\(format)\"; this is not a saved session")
        }
        guard let name = found as? String, name == format else {
            throw .foreign("field 'format' is \(String(describing: found)), expected \"\(format)\"; this is not a saved session")
        }
        guard let fileVersion = fields["version"] as? Int else {
            throw .invalid("field 'version' is missing or not a whole number: expected \(version)")
        }
        guard fileVersion <= version else {
            throw .invalid("field 'version' is \(fileVersion); this rangers reads session files up to version \(version)")
        }
        guard fileVersion >= 1 else { throw .invalid("field 'version' is \(fileVersion), expected 1 to \(version)") }

        let envelope: Envelope
        do {
            envelope = try JSONDecoder().decode(Envelope.self, from: data)
        } catch {
            let problem = decodingProblem(error, file: "session file")
            throw .invalid("field '\(problem.location ?? "?")' \(problem.message)")
        }
        let session = envelope.session
        let snapshotVersion = session.content.version
        guard snapshotVersion == session.contentVersion else {
            throw .edited("the content snapshot (field 'session.content') hashes to \(snapshotVersion) but field "
                + "'session.contentVersion' is \(session.contentVersion): the content was edited after export")
        }
        let computed: String
        do {
            computed = try checksum(of: session)
        } catch {
            throw .invalid("the session cannot be re-encoded to check it: \(error)")
        }
        guard computed == envelope.checksum else {
            throw .edited("checksum mismatch: field 'checksum' is \(envelope.checksum) but the session hashes to "
                + "\(computed): the file was edited or damaged after export")
        }
        return session
    }

    static func checksum(of session: SavedSession) throws -> String {
        let digest = SHA256.hash(data: try JSONEncoder.sorted.encode(session))
        return "sha256:" + digest.map { String(format: "%02x", $0) }.joined()
    }

    private static func describe(_ error: any Error) -> String {
        (error as NSError).userInfo[NSDebugDescriptionErrorKey] as? String ?? "\(error)"
    }
}

public enum SessionFileError: Error, Hashable, Sendable, CustomStringConvertible {
    /// Not a saved session at all.
    case foreign(String)
    /// A saved session, but cut short or malformed.
    case invalid(String)
    /// Well-formed, but changed after it was written.
    case edited(String)

    public var description: String {
        switch self {
        case .foreign(let message), .invalid(let message), .edited(let message): message
        }
    }
}
