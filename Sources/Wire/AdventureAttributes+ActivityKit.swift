#if canImport(ActivityKit) && os(iOS)
import ActivityKit

// In the app, the attributes the server encodes are the activity's own: a push's
// `content-state` decodes into exactly `AdventureAttributes.ContentState`, and
// push-to-start's `attributes-type` names this type. A follower's activity uses the
// same attributes with an empty `heroID`. Only on iOS: ActivityKit's types are not
// available to macOS apps.
extension AdventureAttributes: ActivityAttributes {}
#endif
