"""Seeds a fresh `rangers serve` through its own HTTP API, the way apps and a game
master would, and writes the schemathesis configuration that aims the fuzzer at
what it made: the players' and the game master's keys for the document's two
security schemes, and real ids for every path parameter, so the generated
requests get past authentication and reach the routes' own checks.

    python3 seed.py BASE_URL GAME_MASTER_KEY CONFIG_OUT

The configuration also loads hooks.py beside this file.
"""

import json
import sys
import urllib.error
import urllib.request
from pathlib import Path

base, game_master_key, config_path = sys.argv[1:4]
hooks_path = str(Path(__file__).with_name("hooks.py"))


def call(method, path, key=None, body=None, raw=None, content_type=None):
    data = raw if raw is not None else (json.dumps(body).encode() if body is not None else None)
    request = urllib.request.Request(base + path, data=data, method=method)
    if key:
        request.add_header("Authorization", "Bearer " + key)
    if data is not None:
        request.add_header("Content-Type", content_type or "application/json")
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            text = response.read().decode()
            return json.loads(text) if text else {}
    except urllib.error.HTTPError as error:
        sys.exit(f"seeding failed: {method} {path} answered {error.code} {error.read().decode()[:300]}")


def token(n):
    return f"{n:02x}" * 32


players = {}
for index, (name, heroes) in enumerate([("Ana", ["power-panda", "egghead"]), ("Bao", ["egghead"]),
                                        ("Chae", ["spouty"]), ("Olu", ["cake"])]):
    created = call("POST", "/v1/players", body={"name": name})
    key = created["apiKey"]
    call("PUT", "/v1/players/me/heroes", key, {"heroes": heroes})
    device = f"{name.lower()}-phone"
    call("PUT", f"/v1/devices/{device}/push-to-start-token", key, {"pushToken": token(100 + index), "locale": "en-US"})
    players[name] = {"key": key, "hero": heroes[0], "device": device}

# The party the adventure runs in, and a second one Ana also belongs to: the
# fuzzer's "leave the party" takes her out of that one, so the first keeps her.
party = call("POST", "/v1/parties", players["Ana"]["key"], {"name": "Rangers", "hero": "power-panda"})
for name in ["Bao", "Chae"]:
    call("POST", "/v1/parties/join", players[name]["key"], {"inviteCode": party["inviteCode"], "hero": players[name]["hero"]})
spare = call("POST", "/v1/parties", players["Olu"]["key"], {"name": "Spare", "hero": "cake"})
call("POST", "/v1/parties/join", players["Ana"]["key"], {"inviteCode": spare["inviteCode"], "hero": "egghead"})

# An hour between ticks: while the fuzzer runs, only its own requests change the adventure.
adventure = call("POST", "/v1/gm/adventures", game_master_key,
                 {"partyID": party["id"], "route": "whispering-woods", "tickInterval": 3600, "seed": 1})
for index, name in enumerate(["Ana", "Bao", "Chae"]):
    call("POST", f"/v1/adventures/{adventure['id']}/activities", players[name]["key"],
         {"activityID": f"{name.lower()}-activity", "pushToken": token(index + 1), "hero": players[name]["hero"],
          "frequentPushesEnabled": name == "Ana", "locale": "en-US"})

for name, n in [("Bao", 60), ("Ana", 61)]:
    call("PUT", f"/v1/parties/{party['id']}/channel/members/me", players[name]["key"], {"pushToken": token(n)})
transmission = call("POST", f"/v1/parties/{party['id']}/channel/transmissions?durationMilliseconds=1000",
                    players["Ana"]["key"], raw=b"\x00\x01fuzz seed audio", content_type="audio/aac")


def toml(value):
    return json.dumps(value)  # a JSON string is a TOML basic string


with open(config_path, "w") as config:
    config.write(f"""# Written by scripts/api-fuzz/seed.py for one run.
hooks = {toml(hooks_path)}

# Nothing carried over from earlier runs (found crashes, generated examples):
# the same seed on the same document generates the same requests.
[cache]
enabled = false

[generation]
database = "none"

[auth.openapi.playerKey]
bearer = {toml(players["Ana"]["key"])}

[auth.openapi.gameMasterKey]
bearer = {toml(game_master_key)}

[parameters]
partyID = {toml(party["id"])}
adventureID = {toml(adventure["id"])}
activityID = {toml("ana-activity")}
deviceID = {toml(players["Ana"]["device"])}
transmissionID = {toml(transmission["id"])}

# Bodies that name something real half of the time: the spare party has no
# adventure, so a start can succeed; Ana is in it, so joining it is a real join.
[dictionaries.spare-party]
values = [{toml(spare["id"])}]

[dictionaries.spare-invite]
values = [{toml(spare["inviteCode"])}]

[[operations]]
include-operation-id = "leaveParty"
parameters = {{ partyID = {toml(spare["id"])} }}

[[operations]]
include-operation-id = "startAdventure"
parameters = {{ "body.partyID" = {{ dictionary = "spare-party", probability = 0.5 }} }}
# One refusal of valid data JSON Schema cannot express (a time limit under one
# tick, 422 naming timeLimit): allowed here, and hooks.py's start_accepts_valid_data
# fails any other 422 to valid data.
checks = {{ positive_data_acceptance = {{ expected-statuses = ["2xx", "3xx", "401", "403", "404", "409", "422", "429", "5xx"] }} }}

[[operations]]
include-operation-id = "joinParty"
parameters = {{ "body.inviteCode" = {{ dictionary = "spare-invite", probability = 0.5 }} }}
""")
print(f"seeded: 4 players, parties {party['id']} and {spare['id']}, adventure {adventure['id']}, "
      f"3 activities, 1 transmission")
