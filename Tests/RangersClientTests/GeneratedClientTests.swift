import Crypto
import Foundation
import Testing

/// The committed client (Sources/RangersClient/Generated) is what
/// scripts/generate-client.sh makes of the document as it is now: Stamp.txt records
/// the SHA-256 of the document, the configuration and every file it made, and the
/// generator's version, and each is held against what is on disk.
@Suite struct GeneratedClientTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let generated = root.appendingPathComponent("Sources/RangersClient/Generated")
    static let regenerate = "run scripts/generate-client.sh and commit what it changes"

    static func sha256(_ path: String) throws -> String {
        SHA256.hash(data: try Data(contentsOf: root.appendingPathComponent(path))).map { String(format: "%02x", $0) }.joined()
    }

    static func stamp() throws -> [String: String] {
        let text = try String(contentsOf: generated.appendingPathComponent("Stamp.txt"), encoding: .utf8)
        var entries: [String: String] = [:]
        for line in text.split(separator: "\n") {
            let parts = line.split(separator: " ")
            guard parts.count == 2 else { continue }
            entries[String(parts[0])] = String(parts[1])
        }
        return entries
    }

    @Test func madeFromTheDocumentAsItIs() throws {
        let stamp = try Self.stamp()
        #expect(stamp["document"] == (try Self.sha256("Sources/Server/openapi.yaml")),
                "Sources/Server/openapi.yaml changed since the client was generated: \(Self.regenerate)")
        #expect(stamp["config"] == (try Self.sha256("Sources/RangersClient/openapi-generator-config.yaml")),
                "the generator's configuration changed since the client was generated: \(Self.regenerate)")
    }

    @Test func withTheGeneratorTheScriptNames() throws {
        let script = try String(contentsOf: Self.root.appendingPathComponent("scripts/generate-client.sh"), encoding: .utf8)
        let named = script.split(separator: "\n").first { $0.hasPrefix("generator_version=") }?.split(separator: "=").last
        #expect(named.map(String.init) == (try Self.stamp())["generator"], "the script names another generator: \(Self.regenerate)")
    }

    @Test func generatedFilesAreAsTheGeneratorWroteThem() throws {
        let stamp = try Self.stamp()
        let files = try FileManager.default.contentsOfDirectory(atPath: Self.generated.path).filter { $0.hasSuffix(".swift") }.sorted()
        #expect(files == stamp.keys.filter { $0.hasSuffix(".swift") }.sorted(), "files added or removed by hand: \(Self.regenerate)")
        for file in files {
            #expect(stamp[file] == (try Self.sha256("Sources/RangersClient/Generated/\(file)")),
                    "\(file) was edited by hand: \(Self.regenerate)")
        }
    }
}
