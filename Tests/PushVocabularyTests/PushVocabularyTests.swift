import Foundation
import PushVocabulary
import Testing

@Suite struct PushTokenTests {
    @Test func aTokenMustBeHexOfASaneLength() throws {
        #expect(try PushToken(hex: "ABCDEF0123456789ABCDEF0123456789").hex == "abcdef0123456789abcdef0123456789")
        for bad in ["", "abc", "zz" + String(repeating: "0", count: 62), String(repeating: "a", count: 65),
                    String(repeating: "ab", count: 257), "0x" + String(repeating: "0", count: 62), "é" + String(repeating: "0", count: 63)] {
            #expect(throws: InvalidPushToken.self, "\(bad.prefix(20))…") { try PushToken(hex: bad) }
            #expect(!PushToken.isWellFormed(bad))
        }
    }

    @Test func wellFormedTokensTakeEitherCaseAtEveryAllowedLength() {
        #expect(PushToken.isWellFormed(String(repeating: "aB", count: 8)))
        #expect(PushToken.isWellFormed(String(repeating: "0f", count: 256)))
        #expect(!PushToken.isWellFormed(String(repeating: "0f", count: 7)))
        #expect(!PushToken.isWellFormed(String(repeating: "0f", count: 257)))
    }
}

@Suite struct EncodingTests {
    @Test func base64URLRoundTripsWithoutPaddingOrUnsafeCharacters() {
        for length in 0..<40 {
            let bytes = Data((0..<length).map { UInt8(truncatingIfNeeded: $0 * 37 + 251) })
            let encoded = Base64URL.encode(bytes)
            #expect(!encoded.contains("=") && !encoded.contains("+") && !encoded.contains("/"))
            if length > 0 { #expect(Base64URL.decode(encoded) == bytes) }
        }
        #expect(Base64URL.encode(Data([0xfb, 0xff])) == "-_8")
    }

    @Test func base64URLRefusesPaddingEmptinessAndForeignCharacters() {
        #expect(Base64URL.decode("") == nil)
        #expect(Base64URL.decode("-_8=") == nil)
        #expect(Base64URL.decode("a*b") == nil)
    }

    @Test func constantTimeComparisonIsExact() {
        let secret = Array("a-secret-of-some-length".utf8)
        #expect(constantTimeEqual(expected: secret, given: secret))
        #expect(!constantTimeEqual(expected: secret, given: secret.dropLast()))
        #expect(!constantTimeEqual(expected: secret, given: secret + [0]))
        var flipped = secret
        flipped[flipped.count - 1] ^= 1
        #expect(!constantTimeEqual(expected: secret, given: flipped))
        // Lengths that differ by a multiple of 256 are still told apart.
        #expect(!constantTimeEqual(expected: [UInt8](), given: [UInt8](repeating: 0, count: 256)))
        #expect(!constantTimeEqual(expected: [UInt8](repeating: 7, count: 256), given: [UInt8]()))
    }
}

@Suite struct PushTypeTests {
    @Test func topicsEndWithTheSuffixOfTheirPushType() {
        #expect(PushType.liveactivity.topic(bundleID: "a.b").rawValue == "a.b.push-type.liveactivity")
        #expect(PushType.pushtotalk.topic(bundleID: "a.b").rawValue == "a.b.voip-ptt")
        #expect(PushType.alert.topic(bundleID: "a.b") == Topic(rawValue: "a.b"))
        #expect(PushType.pushtotalk.payloadLimit == 5120 && PushType.liveactivity.payloadLimit == 4096)
    }
}

@Suite struct BroadcastChannelIDTests {
    @Test func aChannelIDIsBase64OfAnyLengthWithinTheBound() throws {
        for good in ["dHN0LXNyY2gtY2hubA==", "CTrNsYq/Ee8AALLzHQaVlA==", "YWJj", "YQ==", "+/+/"] {
            #expect(BroadcastChannelID.isWellFormed(good), "\(good)")
            #expect(try BroadcastChannelID(checking: good).rawValue == good)
        }
        for bad in ["", "YQ=", "YQ===", "Y===", "a*bc", "YQ==YQ==", "dHN0 LXNy", "-_8A", String(repeating: "QUFB", count: 257)] {
            #expect(!BroadcastChannelID.isWellFormed(bad), "\(bad.prefix(20))")
            #expect(throws: InvalidBroadcastChannelID.self) { try BroadcastChannelID(checking: bad) }
        }
        #expect(BroadcastChannelID.isWellFormed(String(repeating: "QUFB", count: 256)))
        #expect(InvalidBroadcastChannelID(text: "x!").description.contains("'x!' is not a broadcast channel id"))
    }

    @Test func storagePoliciesAreAPNsNumbers() throws {
        #expect(MessageStoragePolicy.noMessageStored.rawValue == 0)
        #expect(MessageStoragePolicy.mostRecentMessageStored.rawValue == 1)
        #expect(String(decoding: try JSONEncoder().encode(BroadcastChannelID("YQ==")), as: UTF8.self) == #""YQ==""#)
    }
}
