import Foundation

/// Debian's Chromium (or another Chrome) on PATH: the browser page tests load pages in.
public enum Chromium {
    public static let names = ["chromium", "chromium-browser", "google-chrome"]

    public static func executable() -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        for directory in path.split(separator: ":") {
            for name in names {
                let candidate = "\(directory)/\(name)"
                if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
            }
        }
        return nil
    }

    /// Flags every test run needs: no sandbox (tests may run as root), no GPU, no
    /// first-run pages, a profile of its own.
    public static func arguments(profile: URL) -> [String] {
        ["--headless", "--disable-gpu", "--no-sandbox", "--no-first-run", "--disable-extensions",
         "--user-data-dir=\(profile.path)"]
    }

    public struct Missing: Error, CustomStringConvertible {
        public init() {}

        public var description: String {
            "Chromium is not installed (looked for \(Chromium.names.joined(separator: ", ")) on PATH); "
                + "run scripts/install-system-packages.sh, which installs Debian's chromium package"
        }
    }
}
