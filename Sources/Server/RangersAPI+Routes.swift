import ConsoleView
import Hummingbird

extension RangersAPI {
    /// Every route of the API. Each is documented in openapi.yaml; a test compares
    /// the router's own list of routes with the document's, both ways.
    func registerRoutes(on router: Router<RangersRequestContext>) {
        // Players
        router.post("/v1/players") { request, _ in try await createPlayer(request) }
        router.get("/v1/players/me") { request, _ in try await me(request) }
        router.put("/v1/players/me/heroes") { request, _ in try await pickHeroes(request) }

        // Parties
        router.post("/v1/parties") { request, _ in try await createParty(request) }
        router.post("/v1/parties/join") { request, _ in try await joinParty(request) }
        router.get("/v1/parties/{partyID}") { request, context in
            try await party(request, id: context.parameters.path("partyID"))
        }
        router.delete("/v1/parties/{partyID}/members/me") { request, context in
            try await leaveParty(request, id: context.parameters.path("partyID"))
        }

        // Tokens, as the app sends them
        router.post("/v1/adventures/{adventureID}/activities") { request, context in
            try await registerActivity(request, adventure: context.parameters.path("adventureID"))
        }
        router.put("/v1/activities/{activityID}/token") { request, context in
            try await rotateToken(request, activity: context.parameters.path("activityID"))
        }
        router.post("/v1/activities/{activityID}/status") { request, context in
            try await reportActivityStatus(request, activity: context.parameters.path("activityID"))
        }
        router.put("/v1/devices/{deviceID}/push-to-start-token") { request, context in
            try await registerPushToStartToken(request, device: context.parameters.path("deviceID"))
        }

        // The party's walkie-talkie (Push To Talk)
        router.get("/v1/parties/{partyID}/channel") { request, context in
            try await channel(request, party: context.parameters.path("partyID"))
        }
        router.put("/v1/parties/{partyID}/channel/members/me") { request, context in
            try await joinChannel(request, party: context.parameters.path("partyID"))
        }
        router.delete("/v1/parties/{partyID}/channel/members/me") { request, context in
            try await leaveChannel(request, party: context.parameters.path("partyID"))
        }
        router.post("/v1/parties/{partyID}/channel/transmissions") { request, context in
            try await uploadTransmission(request, party: context.parameters.path("partyID"))
        }
        router.get("/v1/parties/{partyID}/channel/transmissions/{transmissionID}") { request, context in
            try await transmissionAudio(request, party: context.parameters.path("partyID"),
                                        transmission: context.parameters.path("transmissionID"))
        }
        router.get("/v1/push-to-talk/status") { request, _ in try await pushToTalkStatus(request) }

        // Game master
        router.post("/v1/gm/adventures") { request, _ in try await startAdventure(request) }
        router.get("/v1/gm/adventures") { request, _ in try await runningAdventures(request) }
        router.post("/v1/gm/adventures/{adventureID}/end") { request, context in
            try await endAdventure(request, id: context.parameters.path("adventureID"))
        }
        router.post("/v1/gm/parties/{partyID}/channel/close") { request, context in
            try await closeChannel(request, party: context.parameters.path("partyID"))
        }

        // Play
        router.post("/v1/adventures/{adventureID}/potions") { request, context in
            try await usePotion(request, adventure: context.parameters.path("adventureID"))
        }

        // Followers
        router.post("/v1/adventures/{adventureID}/followers") { request, context in
            try await follow(request, adventure: context.parameters.path("adventureID"))
        }
        router.delete("/v1/adventures/{adventureID}/followers/me") { request, context in
            try await unfollow(request, adventure: context.parameters.path("adventureID"))
        }

        // Read
        router.get("/v1/adventures/{adventureID}") { request, context in
            try await adventure(request, id: context.parameters.path("adventureID"))
        }
        router.get("/v1/adventures/{adventureID}/events") { request, context in
            try await events(request, adventure: context.parameters.path("adventureID"))
        }
        router.get("/v1/adventures/{adventureID}/pushes") { request, context in
            try await pushes(request, adventure: context.parameters.path("adventureID"))
        }

        // The live page, opened with a signed link (a browser cannot send the key)
        router.post("/v1/adventures/{adventureID}/live-links") { request, context in
            try await createLiveLink(request, adventure: context.parameters.path("adventureID"))
        }
        router.get("/live/adventures/{adventureID}") { request, context in
            try await livePage(request, adventure: context.parameters.path("adventureID"))
        }
        router.get("/live/adventures/{adventureID}/events") { request, context in
            try await liveEvents(request, context: context, adventure: context.parameters.path("adventureID"))
        }

        // The game master's console (pages for a browser, signed in with a session)
        router.get(RouterPath(ConsolePaths.home)) { request, _ in try await consoleHome(request) }
        router.post(RouterPath(ConsolePaths.signIn)) { request, context in try await consoleSignIn(request, context: context) }
        router.post(RouterPath(ConsolePaths.signOut)) { request, context in try await consoleSignOut(request, context: context) }
        router.get(RouterPath(ConsolePaths.audit)) { request, _ in try await consoleAudit(request) }
        router.get(RouterPath(ConsolePaths.parties)) { request, _ in try await consoleParties(request) }
        router.get(RouterPath(ConsolePaths.parties + "/{partyID}")) { request, context in
            try await consoleParty(request, id: context.parameters.path("partyID"))
        }
        router.post(RouterPath(ConsolePaths.parties + "/{partyID}/adventures")) { request, context in
            try await consoleStartAdventure(request, context: context, party: context.parameters.path("partyID"))
        }
        router.post(RouterPath(ConsolePaths.parties + "/{partyID}/walkie-talkie/close")) { request, context in
            try await consoleCloseWalkieTalkie(request, context: context, party: context.parameters.path("partyID"))
        }
        router.get(RouterPath(ConsolePaths.adventures)) { request, _ in try await consoleRunning(request) }
        router.get(RouterPath(ConsolePaths.adventures + "/{adventureID}")) { request, context in
            try await consoleAdventure(request, id: context.parameters.path("adventureID"))
        }
        router.get(RouterPath(ConsolePaths.adventures + "/{adventureID}/end")) { request, context in
            try await consoleConfirmEnd(request, id: context.parameters.path("adventureID"))
        }
        router.post(RouterPath(ConsolePaths.adventures + "/{adventureID}/end")) { request, context in
            try await consoleEnd(request, context: context, id: context.parameters.path("adventureID"))
        }
        router.get(RouterPath(ConsolePaths.finished)) { request, _ in try await consoleFinished(request) }
        router.get(RouterPath(ConsolePaths.delivery)) { request, _ in try await consoleDelivery(request) }
        router.get(RouterPath(ConsolePaths.adventures + "/{adventureID}/replay")) { request, context in
            try await consoleReplay(request, id: context.parameters.path("adventureID"))
        }
        router.get(RouterPath(ConsolePaths.adventures + "/{adventureID}/timeline")) { request, context in
            try await consoleTimeline(request, id: context.parameters.path("adventureID"))
        }
        router.get(RouterPath(ConsolePaths.adventures + "/{adventureID}/session")) { request, context in
            try await consoleSessionFile(request, id: context.parameters.path("adventureID"))
        }

        // Operations
        router.get("/healthz") { _, _ in try await health() }
        router.get("/readyz") { _, _ in try await readiness() }
        router.get("/metrics") { _, _ in await metricsText() }
        router.get("/openapi.yaml") { _, _ in try openAPIDocument() }
    }
}
