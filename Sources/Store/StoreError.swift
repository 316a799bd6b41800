/// Why the store refused an operation. Each case maps to one kind of HTTP answer,
/// so the API layer never has to read a message to pick a status code.
public enum StoreError: Error, Hashable, Sendable, CustomStringConvertible {
    /// 404: the thing named does not exist (or is not visible to the caller).
    case notFound(String, id: String)
    /// 409: the operation contradicts what is stored (a full party, a second running
    /// adventure, a tick already recorded, a row no longer in the expected state).
    case conflict(String)
    /// 403: the thing exists but belongs to someone else.
    case forbidden(String)
    /// 400: the input is malformed (a non-hex token, an empty name).
    case invalid(String)
    /// 500: a stored value no longer decodes; nothing was changed.
    case corrupt(String)
    /// 503: the database cannot do it now (its disk is full or failing, its file
    /// cannot be written, it is busy past its wait); nothing was changed, and the
    /// same request may succeed later.
    case unavailable(String)

    public var description: String {
        switch self {
        case .notFound(let what, let id): "\(what) '\(id)' not found"
        case .conflict(let message): message
        case .forbidden(let message): message
        case .invalid(let message): message
        case .corrupt(let message): "stored data unreadable: \(message)"
        case .unavailable(let message): message
        }
    }
}
