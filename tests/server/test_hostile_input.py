"""Regression tests of issue 15 (hardening): input a fuzzer found to answer 500 is a 400 that says what
was wrong. Deep JSON on every body route, a `cwd` and an export `path` no file system can hold."""

from __future__ import annotations

import json

import pytest
from kit.server import PrimeClient

from prime_jupyter.protocol.connection_routes import CONNECTION_PATH
from prime_jupyter.protocol.version import PROTOCOL_VERSION
from prime_jupyter.server.http.base import MAX_DEPTH, nests_deeper_than
from prime_jupyter.server.routes import API_PREFIX, route_table

VERBS = ("post", "patch", "put", "delete")
BODY_ROUTES = [
    (verb.upper(), path.removeprefix(API_PREFIX))
    for path, handler in route_table()
    for verb in VERBS
    if verb in vars(handler)
]
DEEP = [b"[" * 100_000, b"[" * 100_000 + b"]" * 100_000, b'{"a":' * 50_000 + b"1" + b"}" * 50_000]
BAD_PATHS = [("a\0b", "NUL byte"), ("x" * 300, "limit is 255")]
ATTACH = CONNECTION_PATH.removeprefix(API_PREFIX.removeprefix("/"))  # "connection/"


def test_every_body_route_is_covered() -> None:
    assert ("POST", "chat/new") in BODY_ROUTES and ("POST", f"{ATTACH}attach") in BODY_ROUTES


@pytest.mark.parametrize(("verb", "path"), BODY_ROUTES)
async def test_deep_json_is_refused_on_every_body_route(prime: PrimeClient, verb: str, path: str) -> None:
    for data in DEEP:
        code, reply = await prime.status(verb, path, data)
        assert code == 400 and f"deeper than {MAX_DEPTH}" in reply["message"]


def test_the_depth_scan_skips_strings_and_counts_what_is_left_open() -> None:
    assert not nests_deeper_than(json.dumps({"text": "[" * 1000}).encode(), MAX_DEPTH)
    assert not nests_deeper_than(b"[" * MAX_DEPTH + b"]" * MAX_DEPTH, MAX_DEPTH)
    assert not nests_deeper_than(b"[[]]" * 10_000, MAX_DEPTH)
    assert nests_deeper_than(b"[" * (MAX_DEPTH + 1), MAX_DEPTH)
    assert nests_deeper_than(b'[{"a":' * MAX_DEPTH + b"1}]" * MAX_DEPTH, MAX_DEPTH)


@pytest.mark.parametrize(("cwd", "says"), BAD_PATHS)
async def test_a_cwd_no_file_system_can_hold_is_a_400(prime: PrimeClient, cwd: str, says: str) -> None:
    requests = [
        ("chat/new", {"cwd": cwd}),
        (f"{ATTACH}attach", {"cwd": cwd, "clientProtocolVersion": PROTOCOL_VERSION}),
    ]
    for path, request in requests:
        code, reply = await prime.status("POST", path, json.dumps(request).encode())
        assert code == 400 and reply["message"].startswith("cwd: ") and says in reply["message"]


@pytest.mark.parametrize(("path", "says"), [*BAD_PATHS, ("\udc80\ud800", "no file name can hold"), (".", "directory")])
async def test_an_export_path_no_file_system_can_hold_is_a_400(prime: PrimeClient, path: str, says: str) -> None:
    session_id = await prime.new_session()
    request = {"sessionId": session_id, "command": "export", "path": path}
    code, reply = await prime.status("POST", "chat/command", json.dumps(request).encode())
    assert code == 400 and reply["message"].startswith("path: ") and says in reply["message"]


ODD_EXPORT_NAMES = [("chat\n.html", "control character"), ("   ", "spaces only"), ("out/", "ends in a slash")]


@pytest.mark.parametrize(("path", "says"), ODD_EXPORT_NAMES)
async def test_an_odd_export_name_is_a_400_naming_the_rule(prime: PrimeClient, path: str, says: str) -> None:
    """Regression (issue 27, item 6): these were written as given."""
    session_id = await prime.new_session()
    requests = [
        ("chat/command", {"sessionId": session_id, "command": "export", "path": path}),
        (f"{ATTACH}command", {"sessionId": session_id, "command": {"type": "export", "path": path}}),
    ]
    for route, request in requests:
        code, reply = await prime.status("POST", route, json.dumps(request).encode())
        assert code == 400 and reply["message"].startswith("path: ") and says in reply["message"], reply


async def test_a_session_name_with_a_nul_is_a_400_naming_the_rule(prime: PrimeClient) -> None:
    """Regression (issue 27, item 6): the NUL was kept in the name."""
    session_id = await prime.new_session()
    requests = [
        ("PATCH", "chat/sessions", {"sessionId": session_id, "name": "a\0b"}),
        ("POST", "chat/command", {"sessionId": session_id, "command": "name", "name": "a\0b"}),
        ("POST", f"{ATTACH}command", {"sessionId": session_id, "command": {"type": "rename_session", "name": "a\0b"}}),
    ]
    for verb, route, request in requests:
        code, reply = await prime.status(verb, route, json.dumps(request).encode())
        assert code == 400 and "control character" in str(reply["message"]), (route, reply)
    assert (await prime.session(session_id))["session"].get("name") is None
