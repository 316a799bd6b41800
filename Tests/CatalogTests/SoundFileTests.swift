import Catalog
import Foundation
import Testing

/// Minimal sound files built byte by byte, so the header parser is tested against
/// known numbers rather than against itself.
enum CAF {
    static func pcm8(seconds: Int, rate: Int) -> Data {
        var data = Data("caff".utf8) + be16(1) + be16(0)
        data += Data("desc".utf8) + be64(32)
        data += be64(Double(rate).bitPattern) + Data("lpcm".utf8) + be32(0)
        data += be32(1) + be32(1) + be32(1) + be32(8)  // bytes/packet, frames/packet, channels, bits
        let frames = seconds * rate
        data += Data("data".utf8) + be64(UInt64(frames + 4)) + be32(0) + Data(count: frames)
        return data
    }
}

func be16(_ v: UInt16) -> Data { Data([UInt8(v >> 8), UInt8(v & 0xFF)]) }
func be32(_ v: UInt32) -> Data { Data((0..<4).reversed().map { UInt8(v >> (8 * $0) & 0xFF) }) }
func be64(_ v: UInt64) -> Data { Data((0..<8).reversed().map { UInt8(v >> (8 * UInt64($0)) & 0xFF) }) }

@Suite struct SoundFileTests {
    @Test func readsCAFDuration() throws {
        let info = try SoundInfo.read(CAF.pcm8(seconds: 2, rate: 8_000), fileExtension: "caf")
        #expect(info.encoding == "lpcm")
        #expect(info.sampleRate == 8_000)
        #expect(info.channels == 1)
        #expect(info.frames == 16_000)
        #expect(info.duration == 2)
    }

    @Test func readsAIFFWithExtendedSampleRate() throws {
        // 44100 Hz as an 80-bit extended float: exponent 0x400E, mantissa 0xAC44 << 48.
        var comm = be16(2) + be32(88_200) + be16(16)
        comm += be16(0x400E) + be64(0xAC44_0000_0000_0000)
        let body = Data("AIFF".utf8) + Data("COMM".utf8) + be32(UInt32(comm.count)) + comm
        let file = Data("FORM".utf8) + be32(UInt32(body.count)) + body
        let info = try SoundInfo.read(file, fileExtension: "aiff")
        #expect(info.sampleRate == 44_100)
        #expect(info.channels == 2)
        #expect(info.duration == 2)
    }

    @Test func truncatedFileIsAnError() {
        let whole = CAF.pcm8(seconds: 1, rate: 8_000)
        #expect(throws: SoundInfo.ReadError.self) { try SoundInfo.read(whole.prefix(40), fileExtension: "caf") }
    }

    @Test func shippedSoundsArePlayableAlertSounds() throws {
        let folder = ContentCheckTests.shipped.appendingPathComponent("Sounds")
        for name in ["HeroDown.caf", "BossDefeated.caf", "Victory.caf", "Defeat.caf", "AdventureStart.caf"] {
            let info = try SoundInfo.read(Data(contentsOf: folder.appendingPathComponent(name)), fileExtension: "caf")
            #expect(SoundInfo.playableEncodings.contains(info.encoding), "\(name)")
            #expect((0.5..<SoundInfo.longestAlertSound).contains(info.duration), "\(name): \(info.duration) s")
        }
    }
}
