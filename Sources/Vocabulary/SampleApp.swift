/// Apple's Emoji Rangers sample app, whose bundle id is every command's default.
public enum SampleApp {
    public static let bundleID = "com.example.apple-samplecode.Emoji-Rangers"
}
