import Foundation

/// How to run an `APNsSimulator`.
public struct APNsSimulatorConfiguration: Sendable {
    public var host: String
    /// 0 picks a free port; read it back from `APNsSimulator.port`.
    public var port: Int
    /// Where channel management listens: like Apple's, apart from the push host.
    /// 0 picks a free port; read it back from `APNsSimulator.managementPort`.
    public var managementPort: Int
    /// Broadcast channels one app may keep (Apple: 10,000 per app and environment).
    public var channelLimitPerApp: Int
    /// Like `api.sandbox.push.apple.com`: also answer `apns-unique-id`.
    public var sandbox: Bool
    /// Apps whose topics are allowed; nil allows any (otherwise 400 TopicDisallowed).
    public var bundleIDs: Set<String>?
    /// Where to write `cert.pem` and `key.pem`; nil makes a new temporary directory.
    public var certificateDirectory: URL?
    /// How many accepted and how many rejected pushes are kept (the newest); totals
    /// are counted regardless, so a long benchmark does not grow without bound.
    public var recordLimit: Int
    /// Most streams one connection may have open (SETTINGS_MAX_CONCURRENT_STREAMS);
    /// APNs allows 1000 so that a client can multiplex.
    public var maximumConcurrentStreams: Int
    /// Resets one connection may send before it gets GOAWAY ENHANCE_YOUR_CALM;
    /// nil counts them (`APNsSimulator.clientResets`) without ever answering.
    public var clientResetLimit: ClientResetLimit?
    /// The simulator's clock, for `iat` checks and record times.
    public var now: @Sendable () -> Date

    public init(
        host: String = "127.0.0.1", port: Int = 0, managementPort: Int = 0, sandbox: Bool = true, bundleIDs: Set<String>? = nil,
        certificateDirectory: URL? = nil, recordLimit: Int = 100_000, maximumConcurrentStreams: Int = 1000,
        clientResetLimit: ClientResetLimit? = .hardened, channelLimitPerApp: Int = 10_000,
        now: @escaping @Sendable () -> Date = Date.init
    ) {
        self.host = host
        self.port = port
        self.managementPort = managementPort
        self.channelLimitPerApp = channelLimitPerApp
        self.sandbox = sandbox
        self.bundleIDs = bundleIDs
        self.certificateDirectory = certificateDirectory
        self.recordLimit = recordLimit
        self.maximumConcurrentStreams = maximumConcurrentStreams
        self.clientResetLimit = clientResetLimit
        self.now = now
    }
}
