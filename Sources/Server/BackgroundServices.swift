import APNs
import Metrics
import Prometheus
import ServiceLifecycle
import Services

/// The ticker, the dispatcher, the followers' channel keeper and the audio
/// retention over the application's store, content and clock, as
/// `buildApplication` runs them beside the HTTP API (or a test without it).
/// Broadcasts and channels go through `resources.followerChannels` (give it the
/// APNs client).
///
/// The order matters: a service group stops its services in reverse order, each
/// after the one before has finished. With the dispatcher first, a SIGTERM stops
/// the HTTP server, then the ticker, and only then the dispatcher, which drains
/// the outbox, now that nothing adds to it.
///
/// `metrics` replaces the registry's factory for the services (a benchmark
/// records the tick lags itself).
public func backgroundServices(_ configuration: ServerConfiguration, resources: ServerResources, apns: any PushSender,
                               metrics: (any MetricsFactory)? = nil) -> [any Service] {
    let metrics = metrics ?? resources.metricsFactory
    return [
        AudioRetention(store: resources.store, retention: configuration.pushToTalk.audioRetention, now: resources.now,
                       health: resources.serviceHealth, metrics: metrics),
        ChannelKeeper(channels: resources.followerChannels, settings: configuration.followers, bundleID: configuration.bundleID,
                      policy: configuration.pushPolicy, now: resources.now, health: resources.serviceHealth,
                      metrics: metrics),
        Dispatcher(store: resources.store, client: apns, channels: resources.followerChannels, settings: configuration.dispatcher,
                   now: resources.now, metrics: metrics, health: resources.deliveryHealth,
                   serviceHealth: resources.serviceHealth),
        Ticker(store: resources.store, content: resources.content, policy: configuration.pushPolicy,
               bundleID: configuration.bundleID, settings: configuration.tickerWithinLease, now: resources.now,
               metrics: metrics, held: resources.adventuresHeld, health: resources.serviceHealth),
    ]
}
