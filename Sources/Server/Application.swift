import Catalog
import Foundation
import Hummingbird
import LiveView
import Prometheus
import PushPolicy
import ServiceLifecycle
import Services
import Store
import Vocabulary

/// What the HTTP API shares with the server's other parts (the ticker and the
/// dispatcher use the same store, content and registry): opened once per process.
public struct ServerResources: Sendable {
    public let store: any RangersStore
    public let content: LoadedContent
    /// Where `/metrics` reads from. Passed in rather than bootstrapped globally, so
    /// each application (and each test) has its own.
    public let metrics: PrometheusCollectorRegistry
    /// The same registry for swift-metrics users: the ticker, the dispatcher and
    /// the APNs client.
    public var metricsFactory: PrometheusMetricsFactory { PrometheusMetricsFactory(registry: metrics) }
    /// The wall clock; a test fixes it to know the times an adventure gets.
    public let now: @Sendable () -> Date
    /// Whether pushes reach APNs: the dispatcher tells, the channel API reports.
    public let deliveryHealth: DeliveryHealth
    /// How many adventures this node's ticker holds: the ticker tells, `/healthz` reports.
    public let adventuresHeld = AdventuresHeld()
    /// Which background loops are in trouble: they tell, the readiness route reports.
    public let serviceHealth = ServiceHealth()
    /// Signs live-page links when no secret is configured: made for this process,
    /// so its links end with it.
    let processLiveLinkSigner = LiveLinkSigner.generated()
    /// The followers' broadcast channels on APNs: give it the APNs client
    /// (`followerChannels.use(client)`) and the API makes a channel for a first
    /// follower, the dispatcher broadcasts and the `ChannelKeeper` looks after them.
    public let followerChannels: FollowerChannels
    /// What the APNs endpoint recorded, when it is a simulator the process runs
    /// (`rangers demo`): the live page shows it beside APNs' answers.
    public private(set) var endpointRecords: EndpointRecords?

    public init(store: any RangersStore, content: LoadedContent, metrics: PrometheusCollectorRegistry = PrometheusCollectorRegistry(),
                now: @escaping @Sendable () -> Date = Date.init) {
        self.store = store
        self.content = content
        self.metrics = metrics
        self.now = now
        deliveryHealth = DeliveryHealth(now: now())
        followerChannels = FollowerChannels(store: store, now: now, metrics: PrometheusMetricsFactory(registry: metrics))
    }

    /// Validates the configuration, loads and checks the content (as `rangers
    /// content check` would, including every alert text and sound the policy
    /// names), and opens the database. Each failure names the setting to fix.
    public static func open(_ configuration: ServerConfiguration, metrics: PrometheusCollectorRegistry = PrometheusCollectorRegistry(),
                            now: @escaping @Sendable () -> Date = Date.init) async throws -> ServerResources {
        try configuration.validate()
        let content: LoadedContent
        do {
            content = try LoadedContent.load(
                from: configuration.contentDirectory,
                requiring: PushPolicy.contentRequirements)
        } catch {
            let first = error.problems.first.map { " (first: \($0))" } ?? ""
            throw InvalidConfiguration(problems: [ConfigurationProblem(
                setting: "contentDirectory",
                message: "'\(configuration.contentDirectory.path)' fails the content check with \(error.problems.count) problem(s)\(first); run `rangers content check`")])
        }
        let store = try await configuration.store.open()
        return ServerResources(store: store, content: content, metrics: metrics, now: now)
    }

    /// The live page shows, beside each push's answer, the devices the endpoint
    /// says it reached (`devicesReached`: of these ids, those it accepted).
    public mutating func showEndpointRecords(devicesReached: @escaping @Sendable ([String]) -> [String: Int]) {
        endpointRecords = EndpointRecords(devicesReached: devicesReached)
    }

    /// Lets go of the store (see `StoreChoice.close`) once the server has stopped.
    public func close() async {
        await StoreChoice.close(store)
    }
}

/// The application `rangers serve` and `rangers demo` run, the tests drive and
/// the benchmarks measure: the HTTP API on `configuration.host:port`, and with an
/// APNs endpoint the services beside it in the same service group (the ticker,
/// the dispatcher, the channel keeper, audio retention), stopped together on
/// SIGTERM. Without one it is the HTTP API alone.
///
/// `onListening` gets the port the server listens on: the one configured, or the
/// one the system picked for port 0.
public func buildApplication(_ configuration: ServerConfiguration, resources: ServerResources, apns: APNsEndpoint? = nil,
                             onListening: @escaping @Sendable (Int) async -> Void = { _ in }) throws -> some ApplicationProtocol {
    try configuration.validate()
    var resources = resources
    var services: [any Service] = []
    if let apns {
        resources.followerChannels.use(apns.client)
        if let simulator = apns.simulator {
            // The live page shows, beside APNs' answers, what the simulator recorded.
            resources.showEndpointRecords { [simulator] in simulator.devicesReached(byAccepted: $0) }
        }
        services = backgroundServices(configuration, resources: resources, apns: apns.client)
    }
    let router = buildRouter(configuration, resources: resources)
    return Application(
        router: router,
        configuration: ApplicationConfiguration(address: .hostname(configuration.host, port: configuration.port),
                                                serverName: "rangers"),
        services: services,
        onServerRunning: { channel in await onListening(channel.localAddress?.port ?? configuration.port) })
}

/// The router with every route, for the application and for the test that holds
/// the routes against the OpenAPI document.
public func buildRouter(_ configuration: ServerConfiguration, resources: ServerResources) -> Router<RangersRequestContext> {
    // Every GET answers HEAD too, as HTTP asks of a server.
    let router = Router(context: RangersRequestContext.self, options: .autoGenerateHeadEndpoints)
    // Metrics outermost, so they record the status the error middleware chose.
    router.add(middleware: HTTPMetricsMiddleware(registry: resources.metrics))
    router.add(middleware: JSONErrorMiddleware(store: resources.store))
    // Inside the error middleware: its 503 is answered like any other refusal.
    router.add(middleware: RequestDeadlineMiddleware(limit: configuration.requestDeadline))
    router.add(middleware: AbuseLimitMiddleware(limits: configuration.limits, store: resources.store, now: resources.now))
    let api = RangersAPI(configuration: configuration, resources: resources)
    api.registerRoutes(on: router)
    // After the routes: it sees only what none of them took (a wrong method, an unknown path).
    router.add(middleware: UnroutedRequestMiddleware(routes: RouteTable(router.routes)))
    return router
}

/// The handlers' shared parts. Handlers check who asks and what they sent, then
/// make one store call that checks and writes in one transaction: a refused
/// request changes nothing.
struct RangersAPI: Sendable {
    let configuration: ServerConfiguration
    let store: any RangersStore
    let content: LoadedContent
    let metrics: PrometheusCollectorRegistry
    let now: @Sendable () -> Date
    let auth: Authenticator
    let deliveryHealth: DeliveryHealth
    let serviceHealth: ServiceHealth
    let adventuresHeld: AdventuresHeld
    let liveLinks: LiveLinkSigner
    let followerChannels: FollowerChannels
    let endpointRecords: EndpointRecords?
    /// Request bodies' decoder: it knows the content's heroes and routes, which
    /// the fields that name one are checked against.
    let decoder: JSONDecoder

    init(configuration: ServerConfiguration, resources: ServerResources) {
        self.configuration = configuration
        store = resources.store
        content = resources.content
        metrics = resources.metrics
        now = resources.now
        deliveryHealth = resources.deliveryHealth
        serviceHealth = resources.serviceHealth
        adventuresHeld = resources.adventuresHeld
        liveLinks = configuration.liveLinkSecret.map(LiveLinkSigner.init(secret:)) ?? resources.processLiveLinkSigner
        followerChannels = resources.followerChannels
        endpointRecords = resources.endpointRecords
        auth = Authenticator(store: resources.store, gameMasterKey: configuration.gameMasterKey)
        decoder = JSONCoding.requestDecoder(knowing: ContentVocabulary(resources.content.game))
    }

    func body<Body: Decodable>(_ type: Body.Type, _ request: Request) async throws -> Body {
        try await JSONCoding.decode(type, from: request, limit: configuration.maximumRequestBodyBytes, with: decoder)
    }
}
