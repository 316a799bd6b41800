import Hummingbird
import Prometheus

/// Counts requests and times them into the registry the application was given,
/// not into the global `MetricsSystem`: several applications in one process (the
/// tests build many) each keep their own numbers.
///
/// Labelled by the route's template (`/v1/parties/{partyID}`), never the raw path,
/// so ids in URLs cannot grow the number of series without bound.
struct HTTPMetricsMiddleware<Context: RequestContext>: RouterMiddleware {
    let registry: PrometheusCollectorRegistry

    static var requests: MetricNameDescriptor {
        MetricNameDescriptor(namespace: "rangers", subsystem: "http", metricName: "requests", unitName: "total",
                             helpText: "HTTP requests answered, by route template and status")
    }
    static var duration: MetricNameDescriptor {
        MetricNameDescriptor(namespace: "rangers", subsystem: "http", metricName: "request_duration", unitName: "seconds",
                             helpText: "Time to answer an HTTP request")
    }
    private static var buckets: [Duration] {
        [.milliseconds(1), .milliseconds(5), .milliseconds(10), .milliseconds(25), .milliseconds(50),
         .milliseconds(100), .milliseconds(250), .milliseconds(500), .seconds(1), .seconds(5)]
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let start = ContinuousClock.now
        do {
            let response = try await next(request, context)
            record(request, context, status: response.status.code, elapsed: ContinuousClock.now - start)
            return response
        } catch {
            let status = (error as? any HTTPResponseError)?.status.code ?? 500
            record(request, context, status: status, elapsed: ContinuousClock.now - start)
            throw error
        }
    }

    private func record(_ request: Request, _ context: Context, status: Int, elapsed: Duration) {
        let route = context.endpointPath ?? "unmatched"
        let method = request.method.rawValue
        registry.makeCounter(descriptor: Self.requests,
                             labels: [("method", method), ("route", route), ("status", String(status))]).increment()
        registry.makeDurationHistogram(descriptor: Self.duration, labels: [("method", method), ("route", route)],
                                       buckets: Self.buckets)
            .record(elapsed)
    }
}
