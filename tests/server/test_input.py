"""No input, however malformed, makes a 500 or breaks a session: 400 naming the field, 413 over the size
limit, 404 for what does not exist."""

from __future__ import annotations

import json

import pytest
from kit.server import PrimeClient, text_of

from prime_jupyter.testing import ScriptedLLMServer, ScriptedTurn, Text

SID = "01a22907-0000-7000-8000-000000000000"


def body(value: object) -> bytes:
    return json.dumps(value).encode()


BAD_BODIES: list[tuple[str, str, bytes, int, str]] = [
    ("POST", "chat", b"not json", 400, "not valid JSON"),
    ("POST", "chat", b"[1, 2]", 400, "JSON object"),
    ("POST", "chat", b"\xff\xfe", 400, "not valid JSON"),
    ("POST", "chat", body({"message": "hi"}), 400, "sessionId"),
    ("POST", "chat", body({"sessionId": 5, "message": "hi"}), 400, "sessionId"),
    ("POST", "chat", body({"sessionId": "../../etc/passwd", "message": "hi"}), 400, "sessionId"),
    ("POST", "chat", body({"sessionId": SID, "message": "hi"}), 404, "no session"),
    ("POST", "chat", body({"sessionId": SID, "message": "hi", "streamingBehavior": "now"}), 400, "streamingBehavior"),
    ("POST", "chat", body({"sessionId": SID, "message": "hi", "images": [{"mimeType": "image/png"}]}), 400, "images.0"),
    ("POST", "chat/new", body({"thinkingLevel": "maximum"}), 400, "thinkingLevel"),
    ("POST", "chat/new", body({"cwd": "does/not/exist"}), 400, "cwd"),
    ("POST", "chat/new", body({"seedMessages": [{"role": "system", "text": "x"}]}), 400, "seedMessages.0.role"),
    ("POST", "chat/question", body({"sessionId": SID}), 400, "questionId"),
    ("POST", "chat/abort", body({}), 400, "sessionId"),
    ("PATCH", "chat/sessions", body({"sessionId": SID, "name": ""}), 400, "name"),
    ("PATCH", "chat/sessions", body({"sessionId": SID, "name": " \n\t "}), 400, "name: a name needs a visible"),
    ("DELETE", "chat/sessions", body({}), 400, "sessionId"),
    ("DELETE", "chat/sessions", body({"sessionId": SID}), 404, "no session"),
    ("POST", "chat/model", body({"sessionId": SID, "model": {"provider": "x"}}), 400, "model.id"),
    ("POST", "chat/command", body({"sessionId": SID, "command": "reboot"}), 400, "command"),
    ("POST", "chat/command", body({"sessionId": SID, "command": "fork"}), 400, "entryId"),
]


@pytest.mark.parametrize(("verb", "path", "data", "status", "names"), BAD_BODIES)
async def test_malformed_bodies_are_refused_with_a_reason(
    prime: PrimeClient, verb: str, path: str, data: bytes, status: int, names: str
) -> None:
    code, reply = await prime.status(verb, path, data)
    assert code == status and names in reply["message"]


@pytest.mark.parametrize("query", [{}, {"sessionId": ""}, {"sessionId": "a/b"}, {"sessionId": SID}])
async def test_bad_session_queries_are_refused(prime: PrimeClient, query: dict[str, str]) -> None:
    for path in ("chat/session", "chat/events"):
        code, reply = await prime.status("GET", path, params=query)
        assert code == (404 if query.get("sessionId") == SID else 400) and "ession" in reply["message"]


@pytest.mark.prime(max_body_bytes=1000)
async def test_a_body_over_the_limit_is_413(prime: PrimeClient) -> None:
    session_id = await prime.new_session()
    code, reply = await prime.status("POST", "chat", body({"sessionId": session_id, "message": "x" * 2000}))
    assert code == 413 and "1000" in reply["message"]


async def test_a_session_survives_every_bad_request(prime: PrimeClient, llm: ScriptedLLMServer) -> None:
    session_id = await prime.new_session()
    for verb, path, data, _, _ in BAD_BODIES:
        if verb != "DELETE":  # a well-formed delete would (rightly) delete it
            await prime.status(verb, path, data.replace(SID.encode(), session_id.encode()))
    for entry_id in ("nope", "", "../x"):
        request = {"sessionId": session_id, "command": "tree", "entryId": entry_id}
        assert (await prime.status("POST", "chat/command", body(request)))[0] == 400
    bad_image = {"sessionId": session_id, "message": "see", "images": [{"mimeType": "image/png", "data": "!!"}]}
    assert (await prime.status("POST", "chat", body(bad_image)))[0] == 400
    llm.enqueue(ScriptedTurn(blocks=[Text(text="still fine")]))
    assert text_of(await prime.turn(session_id, "hello")) == "still fine"
