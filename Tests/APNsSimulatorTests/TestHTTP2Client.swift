import Foundation
import NIOCore
import NIOHTTP2
import NIOPosix
import NIOSSL

/// The smallest HTTP/2-over-TLS client that can talk to the simulator: one
/// connection, any number of concurrent streams, and a record of GOAWAY frames.
/// It trusts only the simulator's certificate file, with full verification.
final class TestHTTP2Client: Sendable {
    struct Response: Sendable {
        var status: Int
        var headers: [String: String]
        var body: Data
        var streamID: Int

        var json: [String: Any]? { (try? JSONSerialization.jsonObject(with: body)) as? [String: Any] }
        var reason: String? { json?["reason"] as? String }
    }

    struct GoAway: Sendable {
        var lastStreamID: Int
        var errorCode: HTTP2ErrorCode
        var debugData: String?
    }

    enum StreamFailure: Error, Equatable {
        /// The server reset the stream (REFUSED_STREAM after its GOAWAY, for instance).
        case reset(HTTP2ErrorCode)
        /// The stream ended without a complete response (the connection went away).
        case closedWithoutResponse
        /// The request could not be sent (after a GOAWAY, for instance).
        case writeFailed(String)
        case timedOut
    }

    let channel: Channel
    private let multiplexer: NIOHTTP2Handler.StreamMultiplexer
    private let goAwayRecorder: GoAwayRecorder

    private init(channel: Channel, multiplexer: NIOHTTP2Handler.StreamMultiplexer, goAwayRecorder: GoAwayRecorder) {
        self.channel = channel
        self.multiplexer = multiplexer
        self.goAwayRecorder = goAwayRecorder
    }

    /// - Parameter serverHostname: the name to verify the certificate against; nil
    ///   verifies the IP address, as curl does for `https://127.0.0.1:…`.
    static func connect(port: Int, caFile: URL, serverHostname: String? = nil) async throws -> TestHTTP2Client {
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.trustRoots = .file(caFile.path)
        tls.certificateVerification = .fullVerification
        tls.applicationProtocols = ["h2"]
        let sslContext = try NIOSSLContext(configuration: tls)
        let goAwayRecorder = GoAwayRecorder()

        // Everything goes in before the connection exists: the server's SETTINGS can
        // follow the TLS handshake at once, and bytes with no handler yet would be lost.
        let (channel, multiplexer) = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connect(host: "127.0.0.1", port: port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    let pipeline = channel.pipeline.syncOperations
                    try pipeline.addHandler(NIOSSLClientHandler(context: sslContext, serverHostname: serverHostname))
                    let multiplexer = try pipeline.configureHTTP2Pipeline(
                        mode: .client, connectionConfiguration: .init(), streamConfiguration: .init()
                    ) { stream in stream.eventLoop.makeSucceededVoidFuture() }
                    try pipeline.addHandler(GoAwayHandler(recorder: goAwayRecorder))
                    return (channel, multiplexer)
                }
            }
        return TestHTTP2Client(channel: channel, multiplexer: multiplexer, goAwayRecorder: goAwayRecorder)
    }

    /// Fails with `StreamFailure.timedOut` rather than letting a test hang.
    func send(method: String = "POST", path: String, headers: [(String, String)], body: Data,
              timeout: Duration = .seconds(10)) async throws -> Response {
        let promise = channel.eventLoop.makePromise(of: Response.self)
        let deadline = channel.eventLoop.scheduleTask(in: TimeAmount(timeout)) { promise.fail(StreamFailure.timedOut) }
        promise.futureResult.whenComplete { _ in deadline.cancel() }
        let requestHeaders = [(":method", method), (":scheme", "https"), (":authority", "localhost"), (":path", path)] + headers
        var frames: [HTTP2Frame.FramePayload] = [.headers(.init(headers: .init(requestHeaders), endStream: body.isEmpty))]
        if !body.isEmpty {
            frames.append(.data(.init(data: .byteBuffer(ByteBuffer(bytes: body)), endStream: true)))
        }
        do {
            _ = try await multiplexer.createStreamChannel { [frames] stream in
                stream.eventLoop.makeCompletedFuture {
                    try stream.pipeline.syncOperations.addHandler(ResponseCollector(request: frames, promise: promise))
                }
            }.get()
        } catch {
            // The collector never got the promise; NIO insists every promise is completed.
            promise.fail(error)
            throw error
        }
        return try await promise.futureResult.get()
    }

    /// Opens a stream with a request's headers, then resets it (CANCEL) before sending
    /// its body: what a client that gives up on a request sends. Returns once the
    /// stream is closed.
    func openAndReset(path: String, headers: [(String, String)]) async throws {
        let promise = channel.eventLoop.makePromise(of: Response.self)
        let requestHeaders = [(":method", "POST"), (":scheme", "https"), (":authority", "localhost"), (":path", path)] + headers
        let frames: [HTTP2Frame.FramePayload] = [.headers(.init(headers: .init(requestHeaders), endStream: false)),
                                                 .rstStream(.cancel)]
        do {
            _ = try await multiplexer.createStreamChannel { stream in
                stream.eventLoop.makeCompletedFuture {
                    try stream.pipeline.syncOperations.addHandler(ResponseCollector(request: frames, promise: promise))
                }
            }.get()
        } catch {
            promise.fail(error)
            throw error
        }
        // The collector fails the promise when the reset stream closes: no answer is expected.
        _ = try? await promise.futureResult.get()
    }

    /// Waits for the server's GOAWAY.
    func nextGoAway(timeout: Duration = .seconds(5)) async throws -> GoAway {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if let goAway = goAwayRecorder.first { return goAway }
            try await Task.sleep(for: .milliseconds(10))
        }
        throw StreamFailure.timedOut
    }

    /// Waits until the connection is closed (by the server, in these tests).
    func waitUntilClosed(timeout: Duration = .seconds(10)) async throws {
        let closed = channel.closeFuture
        let deadline = channel.eventLoop.makePromise(of: Void.self)
        let timer = channel.eventLoop.scheduleTask(in: TimeAmount(timeout)) { deadline.fail(StreamFailure.timedOut) }
        closed.cascade(to: deadline)
        defer { timer.cancel() }
        try await deadline.futureResult.get()
    }

    func close() async {
        try? await channel.close()
    }
}

/// Written on the connection's event loop, read by the test's task.
private final class GoAwayRecorder: @unchecked Sendable {
    private let lock = NSLock()
    private var goAways: [TestHTTP2Client.GoAway] = []
    var first: TestHTTP2Client.GoAway? { lock.withLock { goAways.first } }
    func record(_ goAway: TestHTTP2Client.GoAway) { lock.withLock { goAways.append(goAway) } }
}

private final class GoAwayHandler: ChannelInboundHandler {
    typealias InboundIn = HTTP2Frame
    private let recorder: GoAwayRecorder

    init(recorder: GoAwayRecorder) { self.recorder = recorder }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if case .goAway(let lastStreamID, let errorCode, let opaqueData) = unwrapInboundIn(data).payload {
            recorder.record(.init(lastStreamID: Int(lastStreamID), errorCode: errorCode,
                                  debugData: opaqueData.map { String(buffer: $0) }))
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: Error) {}
}

/// Sends the request once its stream is active and completes the promise with the
/// answer, or with why there is none (so a test never waits forever).
private final class ResponseCollector: ChannelInboundHandler {
    typealias InboundIn = HTTP2Frame.FramePayload
    typealias OutboundOut = HTTP2Frame.FramePayload

    private var request: [HTTP2Frame.FramePayload]
    private let promise: EventLoopPromise<TestHTTP2Client.Response>
    private var status: Int?
    private var headers: [String: String] = [:]
    private var body = Data()
    private var done = false

    init(request: [HTTP2Frame.FramePayload], promise: EventLoopPromise<TestHTTP2Client.Response>) {
        self.request = request
        self.promise = promise
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { sendRequest(context: context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        sendRequest(context: context)
        context.fireChannelActive()
    }

    private func sendRequest(context: ChannelHandlerContext) {
        let frames = request
        request = []
        for frame in frames {
            let written = context.eventLoop.makePromise(of: Void.self)
            written.futureResult.assumeIsolated().whenFailure { error in
                // A server may answer before reading the whole body and then reset the
                // stream; the answer's frames are delivered after this failure, within
                // the same read. Only if none came is the failure the result.
                context.eventLoop.assumeIsolated().execute {
                    self.fail(.writeFailed("\(error)"))
                    context.close(promise: nil)
                }
            }
            context.write(wrapOutboundOut(frame), promise: written)
        }
        context.flush()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .headers(let frame):
            for (name, value, _) in frame.headers {
                if name == ":status" { status = Int(value) } else { headers[name] = value }
            }
            if frame.endStream { finish(context: context) }
        case .data(let frame):
            if case .byteBuffer(let buffer) = frame.data { body.append(contentsOf: buffer.readableBytesView) }
            if frame.endStream { finish(context: context) }
        case .rstStream(let code):
            fail(.reset(code))
        default:
            break
        }
    }

    private func finish(context: ChannelHandlerContext) {
        guard !done, let status else { return fail(.closedWithoutResponse) }
        done = true
        let streamID = (try? context.channel.syncOptions?.getOption(HTTP2StreamChannelOptions.streamID)).map { Int($0) } ?? 0
        promise.succeed(.init(status: status, headers: headers, body: body, streamID: streamID))
    }

    private func fail(_ failure: TestHTTP2Client.StreamFailure) {
        guard !done else { return }
        done = true
        promise.fail(failure)
    }

    func channelInactive(context: ChannelHandlerContext) {
        fail(.closedWithoutResponse)
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: Error) {}
}
