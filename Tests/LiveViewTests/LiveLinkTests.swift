import Foundation
import LiveView
import Testing
import Vocabulary

@Suite struct LiveLinkTests {
    let signer = LiveLinkSigner(secret: "a-secret-of-at-least-thirty-two-characters")
    let adventure = AdventureID("3f6c0d2e-0000-4000-8000-00000000a001")
    let now = 1_767_225_600

    func refusal(_ token: String, for adventure: AdventureID? = nil, at time: Int? = nil) -> LiveLinkRefusal? {
        do {
            _ = try signer.grant(from: token, for: adventure ?? self.adventure, at: time ?? now)
            return nil
        } catch {
            return error
        }
    }

    @Test func aLinkThisServerSignedOpensItsAdventureUntilItExpires() throws {
        for viewer in [LiveLinkGrant.Viewer.gameMaster, .player(PlayerID("player-1|with|bars"))] {
            let grant = LiveLinkGrant(adventure: adventure, expiresAt: now + 60, viewer: viewer)
            let token = signer.token(for: grant)
            #expect(try signer.grant(from: token, for: adventure, at: now) == grant)
            #expect(try signer.grant(from: token, for: adventure, at: now + 59) == grant)
            #expect(refusal(token, at: now + 60) == .expired(at: now + 60))
            // Another node with the same secret reads it; the token is URL-safe as it is.
            #expect(try LiveLinkSigner(secret: "a-secret-of-at-least-thirty-two-characters").grant(from: token, for: adventure, at: now) == grant)
            #expect(token.allSatisfy { $0.isLetter || $0.isNumber || "-_.".contains($0) })
        }
    }

    @Test func aForgedLinkIsRefusedBeforeAnythingItSaysIsBelieved() throws {
        let token = signer.token(for: LiveLinkGrant(adventure: adventure, expiresAt: now + 60, viewer: .gameMaster))
        let parts = token.split(separator: ".").map(String.init)
        // Another server's secret.
        let other = LiveLinkSigner(secret: "another-secret-of-at-least-thirty-two-chars")
        #expect(refusal(other.token(for: LiveLinkGrant(adventure: adventure, expiresAt: now + 60, viewer: .gameMaster))) == .forged)
        // A later expiry (or another adventure) written into the payload, the signature kept.
        let extended = Base64URL.encode(Data("v1|\(adventure.rawValue)|\(now + 999_999)|gm".utf8))
        #expect(refusal(extended + "." + parts[1]) == .forged)
        // The signature changed by one character.
        var signature = Array(parts[1])
        signature[3] = signature[3] == "A" ? "B" : "A"
        #expect(refusal(parts[0] + "." + String(signature)) == .forged)
        // An expired and forged link says forged, not expired: nothing is read before the signature.
        #expect(refusal(extended + "." + parts[1], at: now + 10_000_000) == .forged)
        // The generated secrets of two processes differ.
        let first = LiveLinkSigner.generated(), second = LiveLinkSigner.generated()
        let grant = LiveLinkGrant(adventure: adventure, expiresAt: now + 60, viewer: .gameMaster)
        #expect(throws: LiveLinkRefusal.forged) { try second.grant(from: first.token(for: grant), for: adventure, at: now) }
    }

    @Test func aLinkToAnotherAdventureIsForbiddenAndGarbageIsMalformed() {
        let token = signer.token(for: LiveLinkGrant(adventure: adventure, expiresAt: now + 60, viewer: .gameMaster))
        #expect(refusal(token, for: AdventureID("another-adventure")) == .otherAdventure)
        for garbage in ["", "abc", "a.b.c", "!!!.###", String(repeating: "a", count: 2000) + ".b", ".", token + "x="] {
            #expect(refusal(garbage) == .malformed, "\(garbage.prefix(30))")
        }
    }
}
