"""Issue 15: no input makes a 5xx. For every route of the route table, bodies generated from its request
model's JSON Schema (hypothesis-jsonschema), then mutated (wrong types, huge and hostile strings, deep
nesting) and sent raw; every answer is below 500 and the server is alive and serving afterwards.

Bounded and deterministic: a fixed number of examples per route, `derandomize=True`, no example
database, so the suite stays fast and a failure reproduces. A real `jupyter server` in a subprocess
(hypothesis drives synchronous requests; the server's loop is its own).
"""

from __future__ import annotations

import json
import typing
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis_jsonschema import from_schema
from pydantic import TypeAdapter

from prime_jupyter.ai.registry import ENV_BASE_URLS
from prime_jupyter.protocol.chat_commands import ChatCommandRequest
from prime_jupyter.protocol.commands import Command
from prime_jupyter.protocol.connection_routes import AttachRequest, CommandRequest, RunRequest, WaitRequest
from prime_jupyter.protocol.providers import ProviderSetupRequest
from prime_jupyter.protocol.requests import (
    ChatNewRequest,
    ChatRequest,
    QuestionAnswerRequest,
    RenameSessionRequest,
    SessionRequest,
    SetModelRequest,
)
from prime_jupyter.protocol.shell import ShellRequest
from prime_jupyter.server.routes import API_PREFIX, route_table
from prime_jupyter.testing import ScriptedLLMServer
from prime_jupyter.testing.jupyter_process import JupyterProcess, write_agent_dir

EXAMPLES = 15
"""Per route and verb, and per command of a route taking commands: about 45 cases x 15 requests of a
few ms each keeps the file under 30 s."""

BODIES: dict[tuple[str, str], Any] = {
    ("POST", "chat"): ChatRequest,
    ("POST", "chat/new"): ChatNewRequest,
    ("POST", "chat/question"): QuestionAnswerRequest,
    ("POST", "chat/abort"): SessionRequest,
    ("PATCH", "chat/sessions"): RenameSessionRequest,
    ("DELETE", "chat/sessions"): SessionRequest,
    ("POST", "chat/model"): SetModelRequest,
    ("POST", "chat/command"): ChatCommandRequest,
    ("POST", "connection/attach"): AttachRequest,
    ("POST", "connection/command"): CommandRequest,
    ("POST", "connection/wait"): WaitRequest,
    ("POST", "connection/shell"): ShellRequest,  # never with the live session: it would run what it is sent
    ("POST", "connection/run"): RunRequest,  # a new session or an unknown one: never the live one
    ("POST", "chat/providers"): ProviderSetupRequest,  # may change the default model: see the last test
    ("POST", "chat/providers/test"): ProviderSetupRequest,  # the providers' own URLs are the scripted server's
}
"""The request model of every route that reads a body (a new body route must be added here: see below)."""

QUERIES: dict[tuple[str, str], tuple[str, ...]] = {
    ("GET", "info"): (),
    ("GET", "chat/events"): ("sessionId", "lastEventId"),
    ("GET", "chat/session"): ("sessionId",),
    ("GET", "chat/sessions"): ("cwd",),
    ("GET", "chat/models"): ("sessionId",),
    ("GET", "chat/commands"): ("sessionId",),
    ("GET", "chat/providers"): (),
    ("GET", "connection/events"): ("sessionId", "cursor"),
}
"""The query arguments of every route that reads none."""

REAL_SESSION_ROUTES = {
    ("POST", "chat/command"),
    ("POST", "chat/model"),
    ("PATCH", "chat/sessions"),
    ("POST", "connection/command"),
    ("POST", "connection/wait"),
}
"""Where a body sometimes names the live session, to reach past the lookup (never where it starts a run)."""
RUNS = {"prompt", "steer", "follow_up", "compact", "delete_session"}
"""Commands left out with the live session: they would ask the model, or end the session being fuzzed."""

HOSTILE = [
    "x" * 100_000,
    "x" * 300,
    "a\0b",
    "\0",
    "\ud800",
    "\udc80/\u2028\u2029",
    "../../../../etc/passwd",
    "/",
    "..",
    "%s%n%x",
    "${jndi:ldap://x}",
    "'; DROP TABLE x; --",
    "\x1b[2J",
    "",
    " \n\t ",
    "🙂" * 1000,
]
RAW = [
    b"[" * 100_000,
    b'{"a":' * 10_000,
    b"[" * 70 + b"]" * 70,
    b"\xff\xfe\x00",
    b"null",
    b'"just a string"',
    b"1e999999",
    b'{"sessionId": NaN}',
    b'{"a": 1, "a": 2}',
    b"{" + b'"k":1,' * 20_000 + b'"k":1}',
]


def nested(depth: int) -> object:
    value: object = "bottom"
    for _ in range(depth):
        value = [value]
    return value


wrong_values = st.one_of(
    st.sampled_from(range(len(HOSTILE))).map(HOSTILE.__getitem__),  # (also `hostile_strings` below)
    st.text(max_size=50),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=False, allow_infinity=False),
    st.booleans(),
    st.none(),
    st.lists(st.sampled_from(HOSTILE), max_size=3),
    st.dictionaries(st.sampled_from(["type", "id", "sessionId", "x"]), st.sampled_from(HOSTILE), max_size=3),
    st.sampled_from([nested(30), nested(63), nested(200)]),
)


def _fields(schema: dict[str, Any]) -> list[str]:
    """Every property name anywhere in the schema (so mutations hit fields nested in unions too)."""
    names: set[str] = set()

    def walk(node: object) -> None:
        if isinstance(node, dict):
            names.update(node.get("properties", {}))
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(schema)
    return sorted(names) or ["x"]


KEEP = {"sessionId", "type", "command"}
"""What a flood leaves as generated, so the body gets past the session lookup and the union's choice."""
hostile_strings = st.sampled_from(range(len(HOSTILE))).map(HOSTILE.__getitem__)


@st.composite
def mutated(draw: st.DrawFn, valid: st.SearchStrategy[Any], fields: list[str]) -> Any:
    """A valid body, then either flooded (every field but `KEEP`, here and one level down, set to one
    hostile string: a hostile `cwd` or `path` then reaches the code that uses it) or with one to three
    fields set to values of the wrong type, size or shape."""
    body = draw(valid)
    if not isinstance(body, dict):
        return body
    if draw(st.booleans()):
        hostile = draw(hostile_strings)
        for target in (body, *(v for v in body.values() if isinstance(v, dict))):
            for name in fields:
                if name not in KEEP and draw(st.integers(min_value=0, max_value=3)) > 0:
                    target[name] = hostile
        return body
    for _ in range(draw(st.integers(min_value=1, max_value=3))):
        target = body
        inner = [v for v in body.values() if isinstance(v, dict)]
        if inner and draw(st.booleans()):
            target = draw(st.sampled_from(inner))  # a nested command, model or image
        target[draw(st.sampled_from(fields))] = draw(wrong_values)
    return body


def members(union: Any) -> tuple[Any, ...]:
    """The models of a discriminated union (`Annotated[A | B | ..., Field(discriminator=...)]`)."""
    inner = typing.get_args(union)[0] if typing.get_origin(union) is typing.Annotated else union
    return typing.get_args(inner)


def valid_bodies(model: Any) -> st.SearchStrategy[Any]:
    """Bodies the schema allows. A union is generated member by member: hypothesis-jsonschema takes
    seconds per example to merge a 20-way `oneOf`, and a member at a time is the same set of bodies."""
    if model is CommandRequest:
        return st.fixed_dictionaries({"sessionId": st.text(), "command": valid_bodies(Command)})
    if kinds := members(model):
        return st.one_of([valid_bodies(kind) for kind in kinds])
    schema = TypeAdapter(model).json_schema()
    hostile = from_schema(hostile_schema(schema))
    return st.one_of(from_schema(schema), hostile, hostile)


def hostile_schema(node: Any) -> Any:
    """The schema with every free string (no enum, const, pattern or format) one of `HOSTILE`: bodies of
    the right shape whose `cwd`, `path`, `name` or `message` is hostile get past validation to the code
    that uses them."""
    if isinstance(node, list):
        return [hostile_schema(item) for item in node]
    if not isinstance(node, dict):
        return node
    if node.get("type") == "string" and not {"enum", "const", "pattern", "format"} & set(node):
        return {"enum": HOSTILE}
    return {key: hostile_schema(value) for key, value in node.items()}


def bodies(model: Any, route: tuple[str, str], session_id: str) -> st.SearchStrategy[bytes]:
    schema = TypeAdapter(model).json_schema()
    valid = valid_bodies(model)
    if route in REAL_SESSION_ROUTES:  # a random id only meets the 404 of the lookup; mutations still make them
        valid = valid.map(lambda body: _naming(body, session_id))
    as_json = st.one_of(valid, mutated(valid, _fields(schema))).map(lambda b: json.dumps(b).encode())
    raw = st.sampled_from(range(len(RAW))).map(RAW.__getitem__)  # indices: short in a failure report
    return st.one_of(as_json, as_json, as_json, raw)


def _naming(body: Any, session_id: str) -> Any:
    """The body with the live session's id, unless it would start a run or end the session."""
    if not (isinstance(body, dict) and "sessionId" in body):
        return body
    command = body.get("command")
    kind = command.get("type") if isinstance(command, dict) else command
    return body if kind in RUNS else {**body, "sessionId": session_id}


IN_A_URL = [v[:8_000] for v in HOSTILE if v.isascii() or v.encode("utf-8", "ignore").decode() == v]
"""What a URL can carry: a query of at most 64 kB (httpx), no lone surrogates (not encodable)."""
queries = st.dictionaries(st.sampled_from(["sessionId", "cursor", "lastEventId", "cwd"]), st.sampled_from(IN_A_URL))


@pytest.fixture(scope="module")
def jupyter(tmp_path_factory: pytest.TempPathFactory) -> Iterator[JupyterProcess]:
    base = tmp_path_factory.mktemp("fuzz")
    (base / "root").mkdir()
    with ScriptedLLMServer() as llm, pytest.MonkeyPatch.context() as patch:
        for variable in ENV_BASE_URLS.values():  # a provider test without a URL of its own asks the scripted server
            patch.setenv(variable, llm.base_url)
        write_agent_dir(base / "agent", llm)
        with JupyterProcess(base / "agent", base / "root", base / "runtime", only_ours=True) as server:
            yield server


@pytest.fixture(scope="module")
def client(jupyter: JupyterProcess) -> Iterator[httpx.Client]:
    headers = {"Authorization": f"token {jupyter.token}"}
    with httpx.Client(base_url=jupyter.endpoint.url + API_PREFIX.lstrip("/"), headers=headers, timeout=60) as http:
        yield http


@pytest.fixture(scope="module")
def session_id(client: httpx.Client) -> str:
    reply = client.post("chat/new", json={"model": {"provider": "scripted", "id": "m1"}})
    assert reply.status_code == 200, reply.text
    return str(reply.json()["session"]["sessionId"])


def route_names() -> set[tuple[str, str]]:
    verbs = ("get", "post", "patch", "put", "delete")
    table = [(path.removeprefix(API_PREFIX), handler) for path, handler in route_table()]
    return {(verb.upper(), path) for path, handler in table for verb in verbs if verb in vars(handler)}


def test_every_route_of_the_table_is_fuzzed() -> None:
    assert route_names() == set(BODIES) | set(QUERIES)


FUZZ = settings(
    max_examples=EXAMPLES,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.function_scoped_fixture],
)


def body_cases() -> list[tuple[str, str, Any]]:
    """Each body route with its model; a route taking a union of commands once per command, so every
    command gets its share of examples (an export's `path` is one command of eight)."""
    cases: list[tuple[str, str, Any]] = []
    for (verb, path), model in sorted(BODIES.items()):
        if model is CommandRequest:
            cases += [(verb, path, _command_request(kind)) for kind in members(Command)]
        else:
            cases += [(verb, path, kind) for kind in members(model) or (model,)]
    return cases


def _command_request(kind: Any) -> Any:
    return type(f"CommandRequest_{kind.__name__}", (CommandRequest,), {"__annotations__": {"command": kind}})


@pytest.mark.parametrize(("verb", "path", "model"), body_cases(), ids=lambda v: getattr(v, "__name__", v))
def test_no_body_makes_a_5xx(client: httpx.Client, session_id: str, verb: str, path: str, model: Any) -> None:
    @FUZZ
    @given(data=bodies(model, (verb, path), session_id))
    def send(data: bytes) -> None:
        with client.stream(verb, path, content=data) as reply:  # POST chat streams: the status is enough
            assert reply.status_code < 500, (data[:300], reply.read()[:500])

    send()


@pytest.mark.parametrize(("verb", "path"), sorted(QUERIES))
def test_no_query_makes_a_5xx(client: httpx.Client, session_id: str, verb: str, path: str) -> None:
    @FUZZ
    @given(params=queries, live=st.booleans())
    def send(params: dict[str, str], live: bool) -> None:
        if live and "sessionId" in params:
            params = {**params, "sessionId": session_id}
        with client.stream(verb, path, params=params) as reply:  # an event stream: the status is enough
            assert reply.status_code < 500, (params, reply.read()[:500] if reply.status_code >= 500 else b"")

    send()


def test_the_server_is_alive_and_serving_after_the_fuzzing(client: httpx.Client, session_id: str) -> None:
    assert client.get("info").status_code == 200
    assert client.get("chat/session", params={"sessionId": session_id}).status_code == 200
    fuzzed_default = client.post("chat/new", json={})  # the fuzzed provider setup may have saved any default
    assert fuzzed_default.status_code < 500, fuzzed_default.text
    assert client.post("chat/new", json={"model": {"provider": "scripted", "id": "m1"}}).status_code == 200
