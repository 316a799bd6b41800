import Foundation
import NIOCore
import NIOHTTP2

/// One TLS connection's state. Its streams share its event loop, so it is only ever
/// touched there, with no lock.
final class SimulatorConnection {
    let channel: Channel
    let core: SimulatorCore
    /// The listener it came in on: the push host or channel management.
    let endpoint: SimulatorEndpoint
    /// Assigned when the client's HTTP/2 preface arrives, i.e. after TLS and ALPN succeeded.
    var number = 0
    var tokens = ConnectionTokenState()
    private var openStreams = 0
    private var mostOpenStreams = 0
    /// The newest stream the client opened: a GOAWAY promises to finish it and
    /// everything before it, and tells the client that later streams were not processed.
    private var highestStreamID: HTTP2StreamID = .rootStream
    private var draining = false
    /// When each of the client's recent resets arrived, within the limit's window.
    private var recentResets: [NIODeadline] = []

    init(channel: Channel, core: SimulatorCore, endpoint: SimulatorEndpoint) {
        self.channel = channel
        self.core = core
        self.endpoint = endpoint
    }

    func streamOpened(_ streamID: HTTP2StreamID) {
        openStreams += 1
        highestStreamID = max(highestStreamID, streamID)
        if openStreams > mostOpenStreams {
            mostOpenStreams = openStreams
            core.streamsInFlight(openStreams)
        }
    }

    func streamClosed() {
        openStreams -= 1
        if draining, openStreams == 0 { channel.close(promise: nil) }
    }

    /// The client sent an RST_STREAM frame. Past the configured limit within its
    /// window, the connection is sent GOAWAY ENHANCE_YOUR_CALM and closed once drained.
    func clientSentReset() {
        if number == 0 { number = core.connectionOpened() }
        core.clientResetReceived(connection: number)
        guard let limit = core.configuration.clientResetLimit, !draining else { return }
        let now = NIODeadline.now()
        let windowStart = now - TimeAmount(limit.window)
        recentResets.removeAll { $0 < windowStart }
        recentResets.append(now)
        guard recentResets.count > limit.maximumCount else { return }
        core.logger.info("a client sent too many stream resets: GOAWAY ENHANCE_YOUR_CALM", metadata: [
            "connection": "\(number)", "resets": "\(recentResets.count)", "window": "\(limit.window)",
        ])
        _ = sendGoAway(errorCode: .enhanceYourCalm, debugData: Data("too many stream resets".utf8))
    }

    /// GOAWAY with `lastStreamID` = the newest stream seen: those streams are still
    /// answered, newer ones are refused by the HTTP/2 layer (REFUSED_STREAM) so the
    /// client knows they never reached APNs. The connection closes once drained.
    func sendGoAway(errorCode: HTTP2ErrorCode = .noError, debugData: Data?) -> EventLoopFuture<Void> {
        draining = true
        let opaqueData = debugData.map { channel.allocator.buffer(bytes: $0) }
        let frame = HTTP2Frame(streamID: .rootStream,
                               payload: .goAway(lastStreamID: highestStreamID, errorCode: errorCode, opaqueData: opaqueData))
        let written = channel.writeAndFlush(frame)
        if openStreams == 0 {
            written.whenComplete { [channel] _ in channel.close(promise: nil) }
        }
        return written
    }

    /// Closes the TCP connection beneath TLS with a reset: no close_notify, no GOAWAY,
    /// as when a network path dies mid-flight.
    func abort() -> EventLoopFuture<Void> {
        guard let socketSide = try? channel.pipeline.syncOperations.context(handlerType: SocketSideMarker.self) else {
            return channel.close()
        }
        let linger = (channel as? SocketOptionProvider)?.setSoLinger(NIOLinger(l_onoff: 1, l_linger: 0))
            ?? channel.eventLoop.makeSucceededVoidFuture()
        let closed = channel.eventLoop.makePromise(of: Void.self)
        linger.assumeIsolated().whenComplete { _ in socketSide.close(promise: closed) }
        return closed.futureResult
    }
}

/// Sits at the socket end of a connection's pipeline; closing through its context
/// bypasses the TLS handler's orderly shutdown.
final class SocketSideMarker: ChannelInboundHandler, Sendable {
    typealias InboundIn = ByteBuffer
}

/// The connection's own frames (stream 0). The first is the client's SETTINGS from
/// its preface, which numbers the connection: it now speaks HTTP/2 over TLS, and no
/// stream can have arrived before it. The rest (PING, SETTINGS, the client's GOAWAY)
/// the HTTP/2 handler has already dealt with.
final class ConnectionEventsHandler: ChannelInboundHandler {
    typealias InboundIn = HTTP2Frame

    private let connection: SimulatorConnection

    init(connection: SimulatorConnection) { self.connection = connection }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if connection.number == 0 { connection.number = connection.core.connectionOpened() }
    }

    func errorCaught(context: ChannelHandlerContext, error: Error) {
        // TLS and HTTP/2 handlers close the connection themselves when it is beyond use.
        connection.core.logger.debug("connection error", metadata: ["connection": "\(connection.number)", "error": "\(error)"])
    }
}

/// One HTTP/2 stream: gathers the request, hands it to the checks, writes the answer.
final class PushStreamHandler: ChannelInboundHandler {
    typealias InboundIn = HTTP2Frame.FramePayload
    typealias OutboundOut = HTTP2Frame.FramePayload

    /// Far above any valid payload; past it the request is answered (413) without
    /// reading the rest, so a runaway client cannot exhaust memory.
    static let bodyBufferLimit = 1 << 20

    private let connection: SimulatorConnection
    private let streamID: Int
    /// The request's header block, pseudo-headers included, in order.
    private var head: [(name: String, value: String)]?
    private var body = ByteBuffer()
    private var answered = false

    init(connection: SimulatorConnection, streamID: Int) {
        self.connection = connection
        self.streamID = streamID
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !answered else { return }
        switch unwrapInboundIn(data) {
        case .headers(let headers):
            // A second HEADERS block is trailers, which APNs requests do not carry.
            if head == nil { head = headers.headers.map { ($0.name, $0.value) } }
            if headers.endStream { answer(context: context, requestComplete: true) }
        case .data(let frame):
            if case .byteBuffer(var buffer) = frame.data { body.writeBuffer(&buffer) }
            if body.readableBytes > Self.bodyBufferLimit {
                answer(context: context, requestComplete: false)
            } else if frame.endStream {
                answer(context: context, requestComplete: true)
            }
        default:
            break
        }
    }

    private func answer(context: ChannelHandlerContext, requestComplete: Bool) {
        answered = true
        let request = makeRequest()
        let origin = RequestOrigin(connectionNumber: connection.number, streamID: streamID, endpoint: connection.endpoint)
        let response = connection.core.respond(to: request, connection: &connection.tokens, origin: origin)
        if response.delay > .zero {
            context.eventLoop.assumeIsolated().scheduleTask(in: TimeAmount(response.delay)) {
                self.write(response, context: context, closeStream: !requestComplete)
            }
        } else {
            write(response, context: context, closeStream: !requestComplete)
        }
    }

    private func makeRequest() -> IncomingPushRequest {
        var method = ""
        var path = ""
        var headers: [(name: String, value: String)] = []
        for (name, value) in head ?? [] {
            switch name {
            case ":method": method = value
            case ":path": path = value
            case _ where name.hasPrefix(":"): break
            default: headers.append((name, value))
            }
        }
        return IncomingPushRequest(method: method, path: path, headers: headers, body: Data(body.readableBytesView))
    }

    private func write(_ response: SimulatorResponse, context: ChannelHandlerContext, closeStream: Bool) {
        let headers = [(":status", String(response.status))] + response.headers.map { ($0.name, $0.value) }
        let hasBody = !response.body.isEmpty
        let responseWritten = context.eventLoop.makePromise(of: Void.self)
        context.write(wrapOutboundOut(.headers(.init(headers: .init(headers), endStream: !hasBody))),
                      promise: hasBody ? nil : responseWritten)
        if hasBody {
            let buffer = context.channel.allocator.buffer(bytes: response.body)
            context.write(wrapOutboundOut(.data(.init(data: .byteBuffer(buffer), endStream: true))), promise: responseWritten)
        }
        context.flush()
        guard closeStream else { return }
        // The client is still sending a body that will not be read: once the whole
        // answer is out, RST_STREAM NO_ERROR asks it to stop (RFC 9113 §8.1) without
        // turning the answer into an error. Resetting sooner could discard the answer.
        responseWritten.futureResult.assumeIsolated().whenComplete { _ in
            context.writeAndFlush(self.wrapOutboundOut(.rstStream(.noError)), promise: nil)
        }
    }
}
