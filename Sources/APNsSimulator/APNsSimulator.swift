import APNs
import Foundation
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP2
import NIOPosix
import NIOSSL
import Vocabulary

/// A local APNs: HTTP/2 over TLS, checking requests as Apple does (`PushRequestChecks`,
/// `ChannelRequestChecks`), answering with Apple's statuses and reasons, recording every
/// push, injecting faults. Like Apple it listens twice: the push host (device pushes and
/// broadcasts) and, on a port of its own, broadcast channel management.
public final class APNsSimulator: Sendable {
    public let host: String
    public let port: Int
    /// Channel management's port.
    public let managementPort: Int
    /// The self-signed certificate (PEM) to give a client as its CA file.
    public let certificateFile: URL
    /// The certificate's private key (PEM), next to it.
    public let certificateKeyFile: URL

    let core: SimulatorCore
    /// The push listener and the management listener.
    private let serverChannels: [Channel]
    /// A temporary directory the simulator made for itself, removed at shutdown.
    private let temporaryDirectory: URL?
    private let connections: NIOLockedValueBox<[ObjectIdentifier: OpenConnection]>

    /// A live connection, reachable from any thread through its event loop.
    private struct OpenConnection: Sendable {
        var channel: Channel
        var connection: NIOLoopBound<SimulatorConnection>
    }

    /// `https://<host>:<port>`, what a client takes as its APNs base URL.
    public var baseURL: String { url(port: port) }

    /// `https://<host>:<management port>`, where channels are made, read, listed and deleted.
    public var managementBaseURL: String { url(port: managementPort) }

    private func url(port: Int) -> String { "https://\(host.contains(":") ? "[\(host)]" : host):\(port)" }

    private init(host: String, port: Int, managementPort: Int, certificateFile: URL, certificateKeyFile: URL,
                 temporaryDirectory: URL?, core: SimulatorCore, serverChannels: [Channel],
                 connections: NIOLockedValueBox<[ObjectIdentifier: OpenConnection]>) {
        self.host = host
        self.port = port
        self.managementPort = managementPort
        self.certificateFile = certificateFile
        self.certificateKeyFile = certificateKeyFile
        self.temporaryDirectory = temporaryDirectory
        self.core = core
        self.serverChannels = serverChannels
        self.connections = connections
    }

    public static func start(_ configuration: APNsSimulatorConfiguration = .init(),
                             logger: Logger = Logger(label: "rangers.apns-sim")) async throws -> APNsSimulator {
        for port in [configuration.port, configuration.managementPort] where !(0...65535).contains(port) {
            throw APNsSimulatorError.invalidConfiguration("port \(port) is not in 0…65535")
        }
        if configuration.port != 0, configuration.port == configuration.managementPort {
            throw APNsSimulatorError.invalidConfiguration("the push and management ports must differ")
        }
        guard configuration.channelLimitPerApp >= 1 else {
            throw APNsSimulatorError.invalidConfiguration("channelLimitPerApp must be at least 1")
        }
        guard configuration.recordLimit >= 1 else { throw APNsSimulatorError.invalidConfiguration("recordLimit must be at least 1") }
        guard (1...Int(Int32.max)).contains(configuration.maximumConcurrentStreams) else {
            throw APNsSimulatorError.invalidConfiguration("maximumConcurrentStreams must be at least 1")
        }
        if let limit = configuration.clientResetLimit, limit.maximumCount < 1 || limit.window <= .zero {
            throw APNsSimulatorError.invalidConfiguration("clientResetLimit needs a count of at least 1 and a positive window")
        }
        let identity = try SelfSignedCertificate(host: configuration.host, now: configuration.now())
        let directory = configuration.certificateDirectory
            ?? FileManager.default.temporaryDirectory.appendingPathComponent("apns-sim-\(UUID().uuidString.lowercased())")
        let (certificateFile, keyFile) = try writeIdentity(identity, to: directory)

        var tls = TLSConfiguration.makeServerConfiguration(
            certificateChain: [.certificate(try NIOSSLCertificate(bytes: Array(identity.certificatePEM.utf8), format: .pem))],
            privateKey: .privateKey(try NIOSSLPrivateKey(bytes: Array(identity.privateKeyPEM.utf8), format: .pem)))
        tls.minimumTLSVersion = .tlsv12
        tls.applicationProtocols = ["h2"]
        // A local peer that has not answered close_notify within a second is not going to.
        tls.shutdownTimeout = .seconds(1)
        let sslContext = try NIOSSLContext(configuration: tls)

        let core = SimulatorCore(configuration: configuration, logger: logger)
        let connections = NIOLockedValueBox<[ObjectIdentifier: OpenConnection]>([:])
        func bootstrap(_ endpoint: SimulatorEndpoint) -> ServerBootstrap {
            ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .serverChannelOption(.backlog, value: 256)
                .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
                // TCP_NODELAY is a TCP option: as a socket option (SOL_SOCKET) its number is
                // SO_DEBUG's, which only root may set, and every connection to a simulator
                // run by any other user was closed as soon as it was accepted.
                .childChannelOption(.tcpOption(.tcp_nodelay), value: 1)
                .childChannelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        let connection = try configurePipeline(channel, sslContext: sslContext, core: core, endpoint: endpoint)
                        let key = ObjectIdentifier(connection)
                        let open = OpenConnection(channel: channel, connection: NIOLoopBound(connection, eventLoop: channel.eventLoop))
                        connections.withLockedValue { $0[key] = open }
                        channel.closeFuture.whenComplete { _ in _ = connections.withLockedValue { $0.removeValue(forKey: key) } }
                    }
                }
        }
        var serverChannels: [Channel] = []
        for (endpoint, port) in [(SimulatorEndpoint.push, configuration.port), (.management, configuration.managementPort)] {
            do {
                serverChannels.append(try await bootstrap(endpoint).bind(host: configuration.host, port: port).get())
            } catch {
                for listening in serverChannels { try? await listening.close() }
                if configuration.certificateDirectory == nil { try? FileManager.default.removeItem(at: directory) }
                throw APNsSimulatorError.cannotListen("\(configuration.host):\(port): \(error)")
            }
        }
        let port = serverChannels[0].localAddress?.port ?? configuration.port
        let managementPort = serverChannels[1].localAddress?.port ?? configuration.managementPort
        logger.info("APNs simulator listening", metadata: [
            "address": "\(configuration.host):\(port)", "management": "\(configuration.host):\(managementPort)",
        ])
        return APNsSimulator(host: configuration.host, port: port, managementPort: managementPort, certificateFile: certificateFile,
                             certificateKeyFile: keyFile, temporaryDirectory: configuration.certificateDirectory == nil ? directory : nil,
                             core: core, serverChannels: serverChannels, connections: connections)
    }

    private static func configurePipeline(_ channel: Channel, sslContext: NIOSSLContext, core: SimulatorCore,
                                          endpoint: SimulatorEndpoint) throws -> SimulatorConnection {
        let connection = SimulatorConnection(channel: channel, core: core, endpoint: endpoint)
        let bound = NIOLoopBound(connection, eventLoop: channel.eventLoop)
        var settings = nioDefaultSettings.filter { $0.parameter != .maxConcurrentStreams }
        settings.append(HTTP2Setting(parameter: .maxConcurrentStreams, value: core.configuration.maximumConcurrentStreams))
        var connectionConfiguration = NIOHTTP2Handler.ConnectionConfiguration()
        connectionConfiguration.initialSettings = settings
        // Room for every allowed stream's full payload at once, so flow control never
        // throttles a client that multiplexes as APNs permits.
        connectionConfiguration.targetWindowSize = min(core.configuration.maximumConcurrentStreams * 8192, Int(Int32.max))

        // The simulator applies its own reset limit (`clientResetLimit`), counted on the
        // wire by `ClientResetCounter`, so that NIO's, which sees fewer resets, never fires.
        var streamConfiguration = NIOHTTP2Handler.StreamConfiguration()
        streamConfiguration.streamResetFrameRateLimit.maximumCount = Int(Int32.max)

        let pipeline = channel.pipeline.syncOperations
        try pipeline.addHandler(SocketSideMarker())
        try pipeline.addHandler(NIOSSLServerHandler(context: sslContext))
        try pipeline.addHandler(ClientResetCounter { bound.value.clientSentReset() })
        _ = try pipeline.configureHTTP2Pipeline(
            mode: .server, connectionConfiguration: connectionConfiguration, streamConfiguration: streamConfiguration
        ) { stream in
            do {
                let streamID = try stream.syncOptions!.getOption(HTTP2StreamChannelOptions.streamID)
                let connection = bound.value
                connection.streamOpened(streamID)
                stream.closeFuture.assumeIsolated().whenComplete { _ in connection.streamClosed() }
                try stream.pipeline.syncOperations.addHandler(PushStreamHandler(connection: connection, streamID: Int(streamID)))
                return stream.eventLoop.makeSucceededVoidFuture()
            } catch {
                return stream.eventLoop.makeFailedFuture(error)
            }
        }
        try pipeline.addHandler(ConnectionEventsHandler(connection: connection))
        return connection
    }

    private static func writeIdentity(_ identity: SelfSignedCertificate, to directory: URL) throws -> (certificate: URL, key: URL) {
        let certificateFile = directory.appendingPathComponent("cert.pem")
        let keyFile = directory.appendingPathComponent("key.pem")
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            try Data(identity.certificatePEM.utf8).write(to: certificateFile, options: .atomic)
            // Created empty and private before the key goes in, so it is never world-readable.
            guard FileManager.default.createFile(atPath: keyFile.path, contents: nil, attributes: [.posixPermissions: 0o600]) else {
                throw CocoaError(.fileWriteNoPermission, userInfo: [NSFilePathErrorKey: keyFile.path])
            }
            try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: keyFile.path)
            let handle = try FileHandle(forWritingTo: keyFile)
            defer { try? handle.close() }
            try handle.truncate(atOffset: 0)
            try handle.write(contentsOf: Data(identity.privateKeyPEM.utf8))
        } catch {
            throw APNsSimulatorError.cannotWriteCertificate(directory.path, "\(error)")
        }
        return (certificateFile, keyFile)
    }

    // MARK: Provider keys

    /// Trusts provider tokens signed by this key (`kid` = keyID, `iss` = teamID).
    public func registerProviderKey(publicKeyPEM: String, keyID: String, teamID: String) throws(ProviderKeyRegistrationError) {
        let key = try RegisteredProviderKey(publicKeyPEM: publicKeyPEM, keyID: keyID, teamID: teamID)
        core.state.withLockedValue { $0.rules.providerKeys[keyID] = key }
    }

    public func registerProviderKey(_ key: APNsSigningKey) throws(ProviderKeyRegistrationError) {
        try registerProviderKey(publicKeyPEM: key.publicKeyPEM, keyID: key.keyID, teamID: key.teamID)
    }

    // MARK: Records

    /// Accepted pushes in arrival order (the newest `recordLimit`).
    public func accepted() -> [RecordedPush] { core.state.withLockedValue { Array(core.newest($0.accepted)) } }
    /// Refused pushes in arrival order (the newest `recordLimit`), faults included.
    public func rejected() -> [RejectedPush] { core.state.withLockedValue { Array(core.newest($0.rejected)) } }
    public var acceptedCount: Int { core.state.withLockedValue { $0.acceptedTotal } }
    public var rejectedCount: Int { core.state.withLockedValue { $0.rejectedTotal } }
    /// TLS connections that completed a handshake so far (not cleared by `reset`).
    public var connectionsAccepted: Int { core.state.withLockedValue { $0.connectionsAccepted } }
    /// The most streams in flight at once on any one connection.
    public var maximumConcurrentStreamsSeen: Int { core.state.withLockedValue { $0.maximumConcurrentStreamsSeen } }
    /// Connections open right now.
    public var openConnectionCount: Int { connections.withLockedValue { $0.count } }
    /// RST_STREAM frames clients sent, on every connection. A client that finishes its
    /// streams properly sends none: a reset per push is what Rapid Reset defences count.
    public var clientResets: Int { core.state.withLockedValue { $0.clientResetsTotal } }
    /// RST_STREAM frames each connection's client sent, by connection number; a
    /// connection that sent none is absent.
    public var clientResetsByConnection: [Int: Int] { core.state.withLockedValue { $0.clientResetsByConnection } }

    // MARK: Faults

    /// From now on, pushes to this token get 410 Unregistered with `since` as timestamp.
    public func markUnregistered(deviceToken: String, since: Date) {
        core.state.withLockedValue { $0.rules.unregisteredTokens[deviceToken.lowercased()] = since }
    }

    /// Answers the next `count` valid requests (of `kind` only, when given) with
    /// `status` (default: the reason's) and `reason`.
    public func failNext(_ count: Int, status: Int? = nil, reason: APNsReason,
                         of kind: SimulatorRequestKind? = nil) throws(APNsSimulatorError) {
        guard count >= 0 else { throw .invalidFault("failNext needs a count of 0 or more, not \(count)") }
        let failure = try Self.failure(status: status, reason: reason)
        updateFaults(of: kind) { $0.failNext = count > 0 ? (count, failure) : nil }
    }

    /// Answers a share (0…1) of valid requests (of `kind` only, when given) with
    /// `status` and `reason`; which ones follows from `seed`, so a run can be repeated exactly.
    public func failShare(_ share: Double, status: Int? = nil, reason: APNsReason, seed: UInt64,
                          of kind: SimulatorRequestKind? = nil) throws(APNsSimulatorError) {
        guard (0...1).contains(share) else { throw .invalidFault("failShare needs a share in 0…1, not \(share)") }
        let failure = try Self.failure(status: status, reason: reason)
        updateFaults(of: kind) { $0.failShare = share > 0 ? (share, failure, SplitMix64(seed: seed)) : nil }
    }

    private func updateFaults(of kind: SimulatorRequestKind?, _ change: (inout SimulatorFaults) -> Void) {
        core.state.withLockedValue { state in
            if let kind { change(&state.faultsByKind[kind, default: SimulatorFaults()]) } else { change(&state.faults) }
        }
    }

    private static func failure(status: Int?, reason: APNsReason) throws(APNsSimulatorError) -> SimulatorFaults.Failure {
        let status = status ?? reason.status
        guard (400...599).contains(status) else { throw .invalidFault("an injected failure needs a 4xx or 5xx status, not \(status)") }
        return SimulatorFaults.Failure(status: status, reason: reason)
    }

    /// Holds every answer back by `delay` (zero: answer at once).
    public func delayResponses(by delay: Duration) throws(APNsSimulatorError) {
        guard delay >= .zero else { throw .invalidFault("a response delay cannot be negative") }
        core.state.withLockedValue { $0.faults.delay = delay }
    }

    /// Sends GOAWAY on every open connection, with `{"reason": …}` as debug data when
    /// given. Streams up to its lastStreamID are still answered; the client's newer
    /// streams are refused. Each connection closes once its streams are done.
    public func sendGoAway(reason: APNsReason?) async {
        let debugData = reason.map { PushRejection($0).responseBody }
        await forEachConnection { $0.sendGoAway(debugData: debugData) }
    }

    /// Resets every open connection at the TCP level, answers in flight or not.
    public func dropConnections() async {
        await forEachConnection { $0.abort() }
    }

    /// Forgets records (broadcasts and what devices received included), faults and
    /// unregistered tokens; keeps registered keys, channels and subscriptions.
    public func reset() {
        core.state.withLockedValue { state in
            state.accepted = []
            state.rejected = []
            state.acceptedTotal = 0
            state.rejectedTotal = 0
            state.maximumConcurrentStreamsSeen = 0
            state.clientResetsTotal = 0
            state.clientResetsByConnection = [:]
            state.faults = SimulatorFaults()
            state.faultsByKind = [:]
            state.rules.unregisteredTokens = [:]
            state.broadcasts.forgetRecords()
        }
    }

    /// Stops listening, closes every connection, and removes the certificate
    /// directory if the simulator made it up itself.
    public func shutdown() async throws {
        for serverChannel in serverChannels {
            do {
                try await serverChannel.close()
            } catch ChannelError.alreadyClosed {
                // Already shut down.
            }
        }
        // All at once: each TLS close may wait (up to shutdownTimeout) for the peer's close_notify.
        let closing = connections.withLockedValue { $0.values.map { $0.channel.close(mode: .all) } }
        for closed in closing {
            try? await closed.get()
        }
        if let temporaryDirectory { try? FileManager.default.removeItem(at: temporaryDirectory) }
    }

    private func forEachConnection(_ action: @escaping @Sendable (SimulatorConnection) -> EventLoopFuture<Void>) async {
        let open = connections.withLockedValue { Array($0.values) }
        for connection in open {
            let done = connection.channel.eventLoop.flatSubmit { action(connection.connection.value) }
            try? await done.get()
        }
    }
}

public enum APNsSimulatorError: Error, Hashable, Sendable, CustomStringConvertible {
    case invalidConfiguration(String)
    case invalidFault(String)
    case cannotListen(String)
    case cannotWriteCertificate(String, String)

    public var description: String {
        switch self {
        case .invalidConfiguration(let detail): "invalid simulator configuration: \(detail)"
        case .invalidFault(let detail): "invalid fault: \(detail)"
        case .cannotListen(let detail): "cannot listen on \(detail)"
        case .cannotWriteCertificate(let directory, let detail): "cannot write the certificate into \(directory): \(detail)"
        }
    }
}
