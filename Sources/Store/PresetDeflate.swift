import CZlib
import Foundation

/// Raw deflate (RFC 1951) against a preset dictionary, behind a first byte that
/// names the dictionary: the stored form of `StoredPayload` and `StoredGameText`.
/// Each form's first byte is its own across the store (0x01 a payload's first
/// dictionary, 0x02 the game's first), so a stored value never reads as another
/// kind. The first byte fixes what reading needs: the dictionary and the largest
/// window a value may refer back in. Neither is ever edited once a value has been
/// stored with them: a new one takes a new first byte. How hard the writer works
/// (`Effort`) is not part of the form: inflating does not depend on it, so it may
/// change while every stored value, and every node of a version before, reads
/// what is written with the new effort as it read the old.
struct PresetDeflate: Sendable {
    /// zlib's settings for writing: its level, its hash table's size
    /// (`memoryLevel`), and a window no larger than the form's.
    struct Effort: Sendable {
        let windowBits: Int32
        let memoryLevel: Int32
        let level: Int32
    }

    let mark: UInt8
    let dictionary: [UInt8]
    let windowBits: Int32
    /// What is refused as corrupt names it ("a stored payload").
    let what: String
    /// A stored value that inflates past this is corrupt.
    let largest: Int
    private let primed: PrimedDeflater?

    init(mark: UInt8, dictionary: [UInt8], windowBits: Int32, writing effort: Effort, largest: Int, what: String) {
        // A larger window would write distances an inflater of the form cannot follow.
        precondition(effort.windowBits <= windowBits, "\(what): written with a window larger than its form's")
        self.mark = mark
        self.dictionary = dictionary
        self.windowBits = windowBits
        self.largest = largest
        self.what = what
        primed = PrimedDeflater(dictionary: dictionary, effort: effort)
    }

    /// The bytes to store for `input`: `mark` and the deflated bytes, unless zlib
    /// cannot start or a JSON text (first byte `{`, kept as it is, a stored form of
    /// its own) would not come out smaller.
    func stored(_ input: UnsafeRawBufferPointer) -> Data {
        guard let deflated = deflate(input) else { return Data(input) }
        if input.first == UInt8(ascii: "{") && deflated.count >= input.count { return Data(input) }
        return deflated
    }

    /// What `stored` was given.
    func value(fromStored stored: Data) throws -> Data {
        switch stored.first {
        case UInt8(ascii: "{"): return stored
        case mark: return try inflate(stored.dropFirst())
        case let other: throw StoreError.corrupt("\(what) that begins with byte \(other.map(String.init) ?? "none")")
        }
    }

    /// `mark` and the deflated bytes; nil only if zlib cannot start.
    private func deflate(_ input: UnsafeRawBufferPointer) -> Data? {
        guard let primed else { return nil }
        var stream = z_stream()
        guard deflateCopy(&stream, primed.stream) == Z_OK else { return nil }
        defer { deflateEnd(&stream) }
        let bound = Int(deflateBound(&stream, UInt(input.count)))
        var out = Data(count: 1 + bound)
        let written: Int? = out.withUnsafeMutableBytes { output in
            let base = output.bindMemory(to: UInt8.self).baseAddress!
            base[0] = mark
            stream.next_in = UnsafeMutablePointer(mutating: input.bindMemory(to: UInt8.self).baseAddress)
            stream.avail_in = UInt32(input.count)
            stream.next_out = base + 1
            stream.avail_out = UInt32(bound)
            guard CZlib.deflate(&stream, Z_FINISH) == Z_STREAM_END else { return nil }
            return 1 + bound - Int(stream.avail_out)
        }
        guard let written else { return nil }
        out.count = written
        return out
    }

    /// The bytes `deflate` was given, from what follows the first byte. They are
    /// inflated into one buffer sized from the input (a stored value inflates to
    /// some three to eight times its bytes), doubled while the stream goes on, and
    /// copied out at their size: no chunk is zeroed and appended for each value.
    private func inflate(_ deflated: Data) throws -> Data {
        var stream = z_stream()
        guard inflateInit2_(&stream, -windowBits, zlibVersion(), Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
            throw StoreError.corrupt("\(what): zlib cannot start")
        }
        defer { inflateEnd(&stream) }
        let dictionarySet = dictionary.withUnsafeBufferPointer {
            inflateSetDictionary(&stream, $0.baseAddress, UInt32($0.count))
        }
        guard dictionarySet == Z_OK else { throw StoreError.corrupt("\(what): zlib refused its dictionary") }
        var output = Data(count: Swift.min(largest + 1, Swift.max(1024, deflated.count * 8)))
        var produced = 0
        var status = Z_OK
        try deflated.withUnsafeBytes { input in
            stream.next_in = UnsafeMutablePointer(mutating: input.bindMemory(to: UInt8.self).baseAddress)
            stream.avail_in = UInt32(input.count)
            while status == Z_OK {
                if produced == output.count { output.count = Swift.min(largest + 1, output.count * 2) }
                status = output.withUnsafeMutableBytes { buffer in
                    stream.next_out = buffer.bindMemory(to: UInt8.self).baseAddress! + produced
                    stream.avail_out = UInt32(buffer.count - produced)
                    return CZlib.inflate(&stream, Z_NO_FLUSH)
                }
                produced = output.count - Int(stream.avail_out)
                guard produced <= largest else {
                    throw StoreError.corrupt("\(what) that inflates past \(largest) bytes")
                }
                // Input used up before the stream's end: the stored bytes were cut short.
                if status == Z_OK && stream.avail_in == 0 && stream.avail_out > 0 { status = Z_BUF_ERROR }
            }
        }
        guard status == Z_STREAM_END, stream.avail_in == 0 else {
            throw StoreError.corrupt("\(what) that does not inflate (zlib \(status))")
        }
        return output.withUnsafeBytes { Data(bytes: $0.baseAddress!, count: produced) }
    }

    /// A deflate stream that has taken in the dictionary and nothing else. Taking
    /// in the dictionary is most of the cost of deflating a small value, so each is
    /// deflated by a copy of this stream (`deflateCopy` only reads it: copies can be
    /// made on any thread at once).
    private final class PrimedDeflater: @unchecked Sendable {
        /// At a fixed address: zlib's state points back at its stream.
        let stream: UnsafeMutablePointer<z_stream>

        init?(dictionary: [UInt8], effort: Effort) {
            let stream = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
            stream.initialize(to: z_stream())
            guard deflateInit2_(stream, effort.level, Z_DEFLATED, -effort.windowBits, effort.memoryLevel, Z_DEFAULT_STRATEGY,
                                zlibVersion(), Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
                stream.deallocate()
                return nil
            }
            let dictionarySet = dictionary.withUnsafeBufferPointer {
                deflateSetDictionary(stream, $0.baseAddress, UInt32($0.count))
            }
            guard dictionarySet == Z_OK else {
                deflateEnd(stream)
                stream.deallocate()
                return nil
            }
            self.stream = stream
        }

        deinit {
            deflateEnd(stream)
            stream.deallocate()
        }
    }
}
