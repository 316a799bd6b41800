import NIOCore

/// How many RST_STREAM frames one client connection may send within a window before
/// the simulator answers, as a server hardened against HTTP/2 Rapid Reset
/// (CVE-2023-44487) does, with GOAWAY ENHANCE_YOUR_CALM and closes it.
public struct ClientResetLimit: Hashable, Sendable {
    public var maximumCount: Int
    public var window: Duration

    public init(maximumCount: Int, window: Duration) {
        self.maximumCount = maximumCount
        self.window = window
    }

    /// SwiftNIO's own default for a hardened server: 200 resets in 30 seconds.
    public static let hardened = ClientResetLimit(maximumCount: 200, window: .seconds(30))
}

/// Reads the client's side of a connection as bytes, between TLS and the HTTP/2
/// handler, and reports every RST_STREAM frame in it. The HTTP/2 handler swallows a
/// reset of a stream that is already closed — libcurl 7.88 sends one after every
/// body-less 200 — so only the byte stream shows every reset the client sent.
final class ClientResetCounter: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    /// RFC 9113 §3.4: "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" precedes the client's first frame.
    private var prefaceBytesLeft = 24
    /// The 9-byte frame header being read: length (24 bits), type, flags, stream id.
    private var header: [UInt8] = []
    private var payloadBytesLeft = 0
    private let resetReceived: () -> Void

    private static let rstStreamFrameType: UInt8 = 0x3

    init(resetReceived: @escaping () -> Void) {
        self.resetReceived = resetReceived
        header.reserveCapacity(9)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        scan(unwrapInboundIn(data).readableBytesView)
        context.fireChannelRead(data)
    }

    private func scan(_ bytes: ByteBufferView) {
        var index = bytes.startIndex
        while index < bytes.endIndex {
            let remaining = bytes.endIndex - index
            if prefaceBytesLeft > 0 {
                let skipped = min(prefaceBytesLeft, remaining)
                prefaceBytesLeft -= skipped
                index += skipped
            } else if payloadBytesLeft > 0 {
                let skipped = min(payloadBytesLeft, remaining)
                payloadBytesLeft -= skipped
                index += skipped
            } else {
                header.append(bytes[index])
                index += 1
                guard header.count == 9 else { continue }
                payloadBytesLeft = Int(header[0]) << 16 | Int(header[1]) << 8 | Int(header[2])
                if header[3] == Self.rstStreamFrameType { resetReceived() }
                header.removeAll(keepingCapacity: true)
            }
        }
    }
}
