/// What the APNs endpoint itself recorded, when the server runs beside its
/// simulator (`rangers demo`): the page shows, next to APNs' answer, whether the
/// simulator holds the push and how many devices it reached. Against Apple's
/// APNs there is no such record and the page shows the answer alone.
public struct EndpointRecords: Sendable {
    /// Of these ids (a push's `apns-id`, a broadcast's `apns-request-id`), those
    /// the endpoint accepted, each with the devices it reached.
    let devicesReached: @Sendable ([String]) -> [String: Int]

    public init(devicesReached: @escaping @Sendable ([String]) -> [String: Int]) {
        self.devicesReached = devicesReached
    }
}
