import Catalog
import Crypto
import Foundation

/// A saved session as one self-contained JSON file:
///
///     {"checksum": "sha256:…", "format": "emoji-rangers-session", "session": {…}, "version": 1}
///
/// The checksum covers every value of the session (see `checksum(of:)`), not the
/// file's bytes, so re-indenting the file keeps it valid and editing a value does
/// not. A reader refuses a version newer than it knows.
public enum SessionFile {
    public static let format = "emoji-rangers-session"
    public static let version = 1

    private struct Envelope: Codable {
        var format: String
        var version: Int
        var checksum: String
        var session: SavedSession

        init(format: String, version: Int, checksum: String, session: SavedSession) {
            self.format = format
            self.version = version
            self.checksum = checksum
            self.session = session
        }

        /// The format and version are checked before anything else is decoded, so a
        /// foreign or newer file is named as such rather than as a missing field.
        init(from decoder: any Decoder) throws {
            let fields = try decoder.container(keyedBy: CodingKeys.self)
            guard fields.contains(.format) else {
                throw SessionFileError.foreign("field 'format' is missing: expected \"\(SessionFile.format)\"; this is not a saved session")
            }
            guard let name = try? fields.decode(String.self, forKey: .format), name == SessionFile.format else {
                let shown = (try? fields.decode(String.self, forKey: .format)).map { "\"\($0)\"" } ?? "not a string"
                throw SessionFileError.foreign("field 'format' is \(shown), expected \"\(SessionFile.format)\"; this is not a saved session")
            }
            format = name
            guard let version = try? fields.decode(Int.self, forKey: .version) else {
                throw SessionFileError.invalid("field 'version' is missing or not a whole number: expected \(SessionFile.version)")
            }
            guard (1...SessionFile.version).contains(version) else {
                throw SessionFileError.invalid(version > SessionFile.version
                    ? "field 'version' is \(version); this rangers reads session files up to version \(SessionFile.version)"
                    : "field 'version' is \(version), expected 1 to \(SessionFile.version)")
            }
            self.version = version
            checksum = try fields.decode(String.self, forKey: .checksum)
            session = try fields.decode(SavedSession.self, forKey: .session)
        }
    }

    public static func encode(_ session: SavedSession) throws -> Data {
        let envelope = Envelope(format: format, version: version, checksum: try checksum(of: session), session: session)
        return try JSONEncoder.sorted.encode(envelope) + Data("\n".utf8)
    }

    /// The session in `data`, checked: the format and version, every field, the
    /// content snapshot against its hash and the whole against the checksum.
    public static func decode(_ data: Data) throws(SessionFileError) -> SavedSession {
        guard !data.isEmpty else { throw .invalid("the file is empty") }
        let envelope: Envelope
        do {
            envelope = try JSONDecoder().decode(Envelope.self, from: data)
        } catch let error as SessionFileError {
            throw error
        } catch DecodingError.typeMismatch(_, let context) where context.codingPath.isEmpty {
            throw .foreign("the file is not a JSON object, so not a saved session (expected {\"format\": \"\(format)\", …})")
        } catch {
            let problem = decodingProblem(error, file: "session file")
            let message = problem.location.isEmpty ? problem.message : "field '\(problem.location)' \(problem.message)"
            throw .invalid(message.replacingOccurrences(of: "is not valid JSON:", with: "is not valid JSON, perhaps cut short:"))
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

    /// SHA-256 over the session without its event log and pushes, encoded with sorted
    /// keys, then each event line and each push text followed by a newline: every
    /// value is covered without re-encoding tens of megabytes of log.
    static func checksum(of session: SavedSession) throws -> String {
        var head = session
        head.events = []
        head.pushes.texts = []
        var hash = SHA256()
        hash.update(data: try JSONEncoder.sorted.encode(head))
        // Lines gathered into one buffer: hashing 150,000 small pieces one by one costs more than the hashing.
        var buffer: [UInt8] = []
        buffer.reserveCapacity(1 << 16)
        func add(_ line: some Sequence<UInt8>) {
            buffer.append(contentsOf: line)
            buffer.append(UInt8(ascii: "\n"))
            if buffer.count >= 1 << 16 {
                buffer.withUnsafeBytes { hash.update(bufferPointer: $0) }
                buffer.removeAll(keepingCapacity: true)
            }
        }
        for event in session.events {
            buffer.append(contentsOf: String(event.tick).utf8)
            buffer.append(UInt8(ascii: " "))
            add(event.json.utf8)
        }
        for push in session.pushes.texts { add(push.utf8) }
        buffer.withUnsafeBytes { hash.update(bufferPointer: $0) }
        return "sha256:" + hash.finalize().map { String(format: "%02x", $0) }.joined()
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
