import Foundation
import Testing
import Wire

/// The exact bodies sent to APNs, one file per kind of push, kept in
/// Tests/WireTests/Golden. A change in what the server sends shows up as a diff
/// of these files in review. Regenerate with
/// `RANGERS_UPDATE_GOLDEN=1 swift test --filter GoldenPayloadTests`.
@Suite struct GoldenPayloadTests {
    static let golden = Samples.testsDirectory.appendingPathComponent("Golden")

    /// The golden files are also what the server must accept back, so a hand
    /// edit that breaks one fails here too.
    @Test(arguments: Samples.liveActivityPayloads)
    func liveActivityBodyMatchesGolden(name: String, payload: LiveActivityPayload) throws {
        let golden = try compare(try PayloadEncoder().encode(payload), toGolden: name)
        #expect(try JSONDecoder().decode(LiveActivityPayload.self, from: golden) == payload)
    }

    @Test func pushToTalkBodyMatchesGolden() throws {
        let golden = try compare(try PayloadEncoder().encode(Samples.pushToTalk), toGolden: "push-to-talk")
        #expect(try JSONDecoder().decode(PushToTalkPayload.self, from: golden) == Samples.pushToTalk)
    }

    /// Returns the golden file's bytes.
    private func compare(_ body: Data, toGolden name: String) throws -> Data {
        let file = Self.golden.appendingPathComponent("\(name).json")
        if ProcessInfo.processInfo.environment["RANGERS_UPDATE_GOLDEN"] == "1" {
            try FileManager.default.createDirectory(at: Self.golden, withIntermediateDirectories: true)
            try body.write(to: file, options: .atomic)
        }
        let expected = try Data(contentsOf: file)
        let firstDifference = zip(body, expected).enumerated().first { $0.element.0 != $0.element.1 }?.offset
            ?? min(body.count, expected.count)
        #expect(
            body == expected,
            "\(name).json differs from byte \(firstDifference): got \(String(decoding: body, as: UTF8.self))")
        return expected
    }
}
