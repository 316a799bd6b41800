import APNs
import APNsCurl
import APNsSimulator
import Foundation
import Metrics

/// The APNs a node sends to, and what stopping it takes: Apple's hosts (or
/// another URL an operator gives) through the curl transport, or an APNs
/// simulator started inside this process, which answers like Apple and reaches
/// no phone. `buildApplication` hands it to the dispatcher and the followers'
/// channels.
public struct APNsEndpoint: Sendable {
    public let client: APNsClient
    /// The simulator this process runs, when it sends to one.
    public let simulator: APNsSimulator?

    /// An APNs elsewhere, signed for with `key`; `caFile` adds certificates to trust (a private or test endpoint).
    public static func remote(_ environment: APNsEnvironment, key: APNsSigningKey, caFile: URL? = nil,
                              retry: APNsRetryPolicy = APNsRetryPolicy(),
                              metrics: any MetricsFactory = MetricsSystem.factory) throws -> APNsEndpoint {
        let transport = try CurlHTTP2Transport(configuration: CurlTransportConfiguration(caFile: caFile))
        return APNsEndpoint(client: APNsClient(environment: environment, key: key, transport: transport, retry: retry, metrics: metrics),
                            simulator: nil)
    }

    /// A simulator started in this process, with a provider key made for it.
    public static func simulator(_ configuration: APNsSimulatorConfiguration = APNsSimulatorConfiguration(port: 0),
                                 retry: APNsRetryPolicy = APNsRetryPolicy(),
                                 metrics: any MetricsFactory = MetricsSystem.factory) async throws -> APNsEndpoint {
        let simulator = try await APNsSimulator.start(configuration)
        let key = APNsSigningKey.generate(keyID: "SIMKEY0001", teamID: "SIMTEAM001").key
        try simulator.registerProviderKey(key)
        let endpoint = try remote(.custom(simulator.baseURL, management: simulator.managementBaseURL), key: key,
                                  caFile: simulator.certificateFile, retry: retry, metrics: metrics)
        return APNsEndpoint(client: endpoint.client, simulator: simulator)
    }

    public func shutdown() async {
        await client.shutdown()
        try? await simulator?.shutdown()
    }
}
