import Foundation
import Testing

/// Each library product builds alone, from what it declares, in a build folder of
/// its own: an app or a server that depends on one gets no more than it names.
/// (A dependency used but not declared builds inside this package, where
/// everything is built, and fails only there.)
@Suite struct LibraryProductTests {
    @Test(arguments: ["APNs", "Wire", "RangersClient"])
    func buildsAlone(product: String) async throws {
        let result = try await Subprocess.run("swift", ["build", "--scratch-path", ".build-product-\(product)", "--product", product])
        #expect(result.status == 0, "swift build --product \(product) exited \(result.status):\n\(result.stdout.suffix(8_000))")
    }
}
