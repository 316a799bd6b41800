"""What schemathesis needs to know beyond the OpenAPI document.

- The walkie-talkie's uploads are audio: bytes sent as they are, like
  application/octet-stream.
- JSON Schema cannot say that one field must be at least another: a start's
  `timeLimit` is at least its `tickInterval` (the document says so in words, and
  the server answers 422 naming `timeLimit`). For that one operation the built-in
  `positive_data_acceptance` lets a 422 pass (seed.py), and this file's
  `start_accepts_valid_data` fails every refusal of valid data but that one.
"""

import schemathesis

AUDIO_TYPES = ["audio/aac", "audio/mp4", "audio/mpeg", "audio/wav", "audio/x-caf"]

for media_type in AUDIO_TYPES:
    schemathesis.serializer.alias(media_type, "application/octet-stream")

START = "POST /v1/gm/adventures"
# What positive_data_acceptance expects by default.
ACCEPTED = {401, 403, 404, 409, 429}


@schemathesis.check
def start_accepts_valid_data(ctx, response, case):
    if case.operation.label != START or case.meta is None or not case.meta.generation.mode.is_positive:
        return None
    status = response.status_code
    if 200 <= status < 400 or status in ACCEPTED or status >= 500:
        return None
    body = case.body if isinstance(case.body, dict) else {}
    tick, limit = body.get("tickInterval"), body.get("timeLimit", 28800)
    # JSON Schema's integers include 273.0, and so does the server.
    numbers = all(isinstance(value, (int, float)) and not isinstance(value, bool) for value in (tick, limit))
    shorter_than_a_tick = numbers and limit < tick
    if status == 422 and shorter_than_a_tick and response.json().get("field") == "timeLimit":
        return None
    raise AssertionError(f"Valid data should have been accepted, got {status}: {response.text[:300]}")
