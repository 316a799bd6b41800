import Foundation
import Store
import Testing

@Suite struct StoredPayloadTests {
    /// The push policy's golden payloads: every kind of push the server sends.
    private static let goldenPayloads: [(name: String, bytes: Data)] = {
        let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("PushPolicyTests/Golden")
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return names.filter { $0.hasSuffix(".json") }.sorted().map {
            ($0, (try? Data(contentsOf: folder.appendingPathComponent($0))) ?? Data())
        }
    }()

    @Test func everyKindOfPushIsReadBackByteForByteFromLessThanAThirdOfItsBytes() throws {
        #expect(Self.goldenPayloads.count >= 9)
        for (name, payload) in Self.goldenPayloads {
            let stored = StoredPayload.stored(payload)
            #expect(try StoredPayload.payload(fromStored: stored) == payload, "\(name)")
            #expect(stored.count * 3 < payload.count, "\(name): \(payload.count) bytes stored in \(stored.count)")
        }
    }

    @Test func anUpdateIsStoredInUnderAFifthOfItsBytes() throws {
        let update = try #require(Self.goldenPayloads.first { $0.name == "update-high-hero-down.json" }).bytes
        let stored = StoredPayload.stored(update)
        #expect(stored.first == 0x01)
        #expect(stored.count * 5 < update.count, "\(update.count) bytes stored in \(stored.count)")
    }

    /// What every version before this one stored, and still stores where deflating
    /// would not save a byte: the payload's own JSON.
    @Test func aPayloadStoredAsItIsIsReadAsItIs() throws {
        for old in [#"{"push":0}"#, #"{"aps":{"alert":"x"}}"#, "{}"] {
            #expect(try StoredPayload.payload(fromStored: Data(old.utf8)) == Data(old.utf8))
        }
        #expect(StoredPayload.stored(Data("{}".utf8)) == Data("{}".utf8))
    }

    /// Bytes the store was handed that are not JSON are kept too, deflated.
    @Test func anyBytesAreReadBackAsTheyWereHanded() throws {
        var random = SystemRandomNumberGenerator()
        let noise = Data((0..<3_000).map { _ in UInt8.random(in: 0...255, using: &random) })
        for bytes in [Data(), Data([0x01]), Data("not json".utf8), noise, Data(repeating: 0x7B, count: 5_000)] {
            let stored = StoredPayload.stored(bytes)
            #expect(try StoredPayload.payload(fromStored: stored) == bytes)
        }
    }

    /// A payload deflated by the first version of the format: its dictionary may
    /// never change, or what it stored would read as something else.
    @Test func aPayloadStoredWithTheFirstDictionaryReadsTheSameForever() throws {
        let stored = try #require(Data(base64Encoded: "ASM9bRiYkZE6cCUOM2NqJg9Mx4LMp3X6oHPyoGnqMDM3MjI1MzFASyUQYUOD2loA"))
        let update = try #require(Self.goldenPayloads.first { $0.name == "update-low.json" }).bytes
        #expect(try StoredPayload.payload(fromStored: stored) == update)
    }

    /// The writer works less hard than it did when the form was first taken (a
    /// smaller window, a lower level), and an update, the commonest push, must
    /// not come out larger for it: each update's bytes as the first settings
    /// (an 8 KiB window, level 6) stored it, the mark included.
    @Test func anUpdateIsNoLargerThanWhenTheFormWasFirstWritten() throws {
        let first = ["update-low.json": 48, "update-high-hero-down.json": 97, "update-demoted.json": 97,
                     "follower-channel-update.json": 48]
        for (name, count) in first {
            let update = try #require(Self.goldenPayloads.first { $0.name == name }).bytes
            #expect(StoredPayload.stored(update).count <= count, "\(name)")
        }
    }

    @Test func aDamagedStoredPayloadIsRefusedAsCorruptNotRead() throws {
        let stored = StoredPayload.stored(try #require(Self.goldenPayloads.first).bytes)
        let damaged: [(String, Data)] = [
            ("an unknown first byte", Data([0x02]) + stored.dropFirst()),
            ("nothing", Data()),
            ("cut short", stored.prefix(stored.count / 2)),
            ("with bytes after its end", stored + Data([1, 2, 3])),
            ("the mark alone", Data([0x01])),
        ]
        for (what, bytes) in damaged {
            #expect(throws: StoreError.self, "\(what)") { try StoredPayload.payload(fromStored: bytes) }
            do { _ = try StoredPayload.payload(fromStored: bytes) } catch StoreError.corrupt {
            } catch { Issue.record("\(what): \(error) is not a corrupt stored value") }
        }
    }

    /// A value inflates into a buffer sized from its stored bytes, grown while the
    /// stream goes on: one many times its stored size comes back whole, up to the
    /// largest a value may be and not a byte past it.
    @Test func aValueManyTimesItsStoredSizeComesBackWholeUpToTheLargest() throws {
        let largest = 1 << 20
        for count in [1, 1023, 1024, 1025, 70_000, largest] {
            let value = Data((0..<count).map { UInt8(truncatingIfNeeded: $0 / 4000 + 32) })
            let stored = StoredPayload.stored(value)
            // Past 1 KiB, more than the first buffer holds: the buffer grows.
            if count > 1024 { #expect(max(1024, stored.count * 8) < count, "\(count) stored in \(stored.count)") }
            #expect(try StoredPayload.payload(fromStored: stored) == value, "\(count)")
        }
        let past = StoredPayload.stored(Data(repeating: 0x20, count: largest + 1))
        #expect(throws: StoreError.corrupt("a stored payload that inflates past \(largest) bytes")) {
            try StoredPayload.payload(fromStored: past)
        }
    }

    @Test func aPayloadThatWouldInflatePastAnyPushIsRefused() {
        let huge = StoredPayload.stored(Data(repeating: 0x20, count: 2 << 20))
        #expect(huge.count < 10_000)
        #expect(throws: StoreError.self) { try StoredPayload.payload(fromStored: huge) }
    }
}
