import Foundation

/// What the content check needs to know about an alert sound: iOS plays a custom
/// notification sound only if it is Linear PCM, IMA4, µ-law or a-law in a CAF,
/// AIFF or WAV file, and shorter than 30 seconds (otherwise the default sound).
public struct SoundInfo: Hashable, Sendable {
    public static let longestAlertSound = 30.0
    public static let playableEncodings: Set<String> = ["lpcm", "ima4", "ulaw", "alaw"]

    public var encoding: String
    public var sampleRate: Double
    public var channels: Int
    public var frames: Int

    public var duration: Double { sampleRate > 0 ? Double(frames) / sampleRate : 0 }

    public struct ReadError: Error, CustomStringConvertible {
        public var description: String
    }

    /// Reads the header of a `.caf` or `.aiff`/`.aif` file.
    public static func read(_ data: Data, fileExtension: String) throws(ReadError) -> SoundInfo {
        var reader = BigEndianReader(bytes: [UInt8](data))
        switch fileExtension.lowercased() {
        case "caf": return try readCAF(&reader)
        case "aiff", "aif": return try readAIFF(&reader)
        default: throw ReadError(description: "'.\(fileExtension)' is not a sound format the check reads (use .caf or .aiff)")
        }
    }

    private static func readCAF(_ r: inout BigEndianReader) throws(ReadError) -> SoundInfo {
        guard try r.fourCC() == "caff" else { throw ReadError(description: "not a CAF file (no 'caff' header)") }
        try r.skip(4)  // file version and flags
        var description: (rate: Double, format: String, bytesPerPacket: Int, framesPerPacket: Int, channels: Int)?
        var audioBytes: Int?
        var validFrames: Int?
        while !r.atEnd {
            let type = try r.fourCC()
            let size = Int(truncatingIfNeeded: try r.uint64())
            switch type {
            case "desc":
                let rate = Double(bitPattern: try r.uint64())
                let format = try r.fourCC()
                try r.skip(4)  // format flags
                let bytesPerPacket = Int(try r.uint32())
                let framesPerPacket = Int(try r.uint32())
                let channels = Int(try r.uint32())
                try r.skip(size - 28)
                description = (rate, format, bytesPerPacket, framesPerPacket, channels)
            case "data":
                // A size of -1 means "to the end of the file"; 4 bytes of edit count come first.
                let length = size < 0 ? r.remaining : size
                audioBytes = length - 4
                try r.skip(length)
            case "pakt":
                validFrames = Int(truncatingIfNeeded: try r.uint64(at: 8))
                try r.skip(size)
            default:
                try r.skip(size)
            }
        }
        guard let description else { throw ReadError(description: "CAF file has no 'desc' chunk") }
        guard let audioBytes else { throw ReadError(description: "CAF file has no 'data' chunk") }
        let frames: Int
        if let validFrames {
            frames = validFrames
        } else if description.bytesPerPacket > 0 {
            frames = audioBytes / description.bytesPerPacket * description.framesPerPacket
        } else {
            throw ReadError(description: "variable-size packets without a 'pakt' chunk")
        }
        return SoundInfo(encoding: description.format, sampleRate: description.rate,
                         channels: description.channels, frames: frames)
    }

    private static func readAIFF(_ r: inout BigEndianReader) throws(ReadError) -> SoundInfo {
        guard try r.fourCC() == "FORM" else { throw ReadError(description: "not an AIFF file (no 'FORM' header)") }
        try r.skip(4)
        let form = try r.fourCC()
        guard form == "AIFF" || form == "AIFC" else { throw ReadError(description: "not an AIFF file ('\(form)')") }
        while !r.atEnd {
            let type = try r.fourCC()
            let size = Int(try r.uint32())
            guard type == "COMM" else {
                try r.skip(size + size % 2)
                continue
            }
            let channels = Int(try r.uint16())
            let frames = Int(try r.uint32())
            try r.skip(2)  // sample size
            let rate = try r.extended80()
            // AIFC names its compression; plain AIFF is always big-endian PCM.
            let encoding = form == "AIFC" && size >= 22 ? try r.fourCC() : "lpcm"
            let normalized = ["NONE": "lpcm", "sowt": "lpcm", "twos": "lpcm", "fl32": "lpcm",
                              "ima4": "ima4", "ulaw": "ulaw", "alaw": "alaw"][encoding] ?? encoding
            return SoundInfo(encoding: normalized, sampleRate: rate, channels: channels, frames: frames)
        }
        throw ReadError(description: "AIFF file has no 'COMM' chunk")
    }
}

private struct BigEndianReader {
    let bytes: [UInt8]
    var offset = 0

    var atEnd: Bool { offset >= bytes.count }
    var remaining: Int { bytes.count - offset }

    mutating func skip(_ count: Int) throws(SoundInfo.ReadError) {
        guard count >= 0, count <= remaining else { throw truncated }
        offset += count
    }

    mutating func fourCC() throws(SoundInfo.ReadError) -> String {
        guard remaining >= 4 else { throw truncated }
        defer { offset += 4 }
        return String(decoding: bytes[offset..<offset + 4], as: UTF8.self)
    }

    mutating func uint16() throws(SoundInfo.ReadError) -> UInt16 { UInt16(try integer(2)) }
    mutating func uint32() throws(SoundInfo.ReadError) -> UInt32 { UInt32(try integer(4)) }
    mutating func uint64() throws(SoundInfo.ReadError) -> UInt64 { try integer(8) }

    /// Reads a big-endian integer `skipping` bytes ahead and advances past it.
    mutating func uint64(at skipping: Int) throws(SoundInfo.ReadError) -> UInt64 {
        let start = offset
        try skip(skipping)
        defer { offset = start }
        return try integer(8)
    }

    private mutating func integer(_ width: Int) throws(SoundInfo.ReadError) -> UInt64 {
        guard remaining >= width else { throw truncated }
        var value: UInt64 = 0
        for byte in bytes[offset..<offset + width] { value = value << 8 | UInt64(byte) }
        offset += width
        return value
    }

    /// The 80-bit IEEE extended float AIFF uses for its sample rate.
    mutating func extended80() throws(SoundInfo.ReadError) -> Double {
        let signAndExponent = try integer(2)
        let mantissa = try integer(8)
        let exponent = Int(signAndExponent & 0x7FFF) - 16383 - 63
        let value = Double(mantissa) * pow(2.0, Double(exponent))
        return signAndExponent & 0x8000 != 0 ? -value : value
    }

    private var truncated: SoundInfo.ReadError { SoundInfo.ReadError(description: "the file ends too early") }
}
