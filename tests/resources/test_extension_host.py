"""Python extensions in process: a session built by the runtime with extension files on disk, driven by the
scripted provider through the real anthropic wire format. A registered tool the model calls; a block the
model reads (the tool never ran); a rewritten result; failures at setup and in a handler reported with
file:line while the session and the other extensions go on; an administrator's policy no user extension
undoes; `before_prompt` context the provider receives; session events; unique module names."""

from __future__ import annotations

import asyncio
import json
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

from prime_jupyter.connection.in_process import InProcessAgentConnection
from prime_jupyter.protocol.events import Notify, QuestionAsked, SessionEvent
from prime_jupyter.protocol.questions import SelectAnswer
from prime_jupyter.resources.extensions.host import ExtensionHost
from prime_jupyter.runtime.agent_session import AgentSession
from prime_jupyter.runtime.factory import SessionOptions, create_agent_session
from prime_jupyter.runtime.permissions import PermissionMode
from prime_jupyter.sessions.entries import CustomEntry
from prime_jupyter.testing import ScriptedLLMServer, ScriptedTurn, Text, ToolCall


def agent_home(tmp_path: Path, llm: ScriptedLLMServer, **settings: object) -> Path:
    home = tmp_path / "agent"
    (home / "extensions").mkdir(parents=True, exist_ok=True)
    provider = {"baseUrl": llm.base_url, "api": "anthropic-messages", "apiKey": "k", "models": [{"id": "m1"}]}
    (home / "models.json").write_text(json.dumps({"providers": {"scripted": provider}}))
    (home / "settings.json").write_text(json.dumps(settings))
    return home


def extension(folder: Path, name: str, source: str) -> Path:
    """Write an extension file; returns its path."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{name}.py"
    path.write_text(textwrap.dedent(source).lstrip())
    return path


def line_of(path: Path, needle: str) -> int:
    return next(i for i, line in enumerate(path.read_text().split("\n"), 1) if needle in line)


def session_options(
    tmp_path: Path, home: Path, permission: PermissionMode = "auto", *, interactive: bool = False, **options: Any
) -> SessionOptions:
    return SessionOptions(
        cwd=tmp_path,
        model="scripted/m1",
        tools=["bash"],
        agent_dir=home,
        permission_mode=permission,
        interactive=interactive,
        **options,
    )


def make_session(tmp_path: Path, home: Path, permission: PermissionMode = "auto", **options: Any) -> AgentSession:
    return create_agent_session(session_options(tmp_path, home, permission, **options))


class Events:
    def __init__(self, session: AgentSession) -> None:
        self.all: list[SessionEvent] = []
        self.questions: asyncio.Queue[QuestionAsked] = asyncio.Queue()
        session.subscribe(self._on)

    def _on(self, event: SessionEvent) -> None:
        self.all.append(event)
        if isinstance(event, QuestionAsked):
            self.questions.put_nowait(event)

    def notices(self) -> list[str]:
        return [e.message for e in self.all if isinstance(e, Notify)]


def tool_results(llm: ScriptedLLMServer) -> list[dict[str, Any]]:
    """The tool results the provider was sent in the last request, in order."""
    messages = llm.requests[-1].body["messages"]
    return [b for m in messages if isinstance(m["content"], list) for b in m["content"] if b["type"] == "tool_result"]


def result_text(block: dict[str, Any]) -> str:
    content = block["content"]
    return content if isinstance(content, str) else "".join(c.get("text", "") for c in content)


ADDER = """
def setup(prime):
    def add(args):
        return str(args["a"] + args["b"])

    prime.register_tool(
        "add",
        "Add two integers.",
        {"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}}, "required": ["a", "b"]},
        add,
    )
"""


@pytest.mark.asyncio
async def test_a_registered_tool_is_offered_with_its_schema_and_its_result_reaches_the_model(
    tmp_path: Path, llm: ScriptedLLMServer
) -> None:
    home = agent_home(tmp_path, llm)
    extension(home / "extensions", "adder", ADDER)
    session = make_session(tmp_path, home)
    llm.enqueue(
        ScriptedTurn(blocks=[ToolCall(name="add", arguments={"a": 2, "b": 40})]), ScriptedTurn(blocks=[Text(text="ok")])
    )
    await session.prompt("add them")
    offered = {t["name"]: t for t in llm.requests[0].body["tools"]}
    assert offered["add"]["input_schema"]["required"] == ["a", "b"]
    [result] = tool_results(llm)
    assert result_text(result) == "42" and not result.get("is_error")
    await session.dispose()


@pytest.mark.asyncio
async def test_a_registered_tool_checks_its_schema_and_asks_in_ask_mode(tmp_path: Path, llm: ScriptedLLMServer) -> None:
    home = agent_home(tmp_path, llm)
    extension(home / "extensions", "adder", ADDER)
    session = make_session(tmp_path, home, "ask", interactive=True)
    events = Events(session)
    llm.enqueue(
        ScriptedTurn(blocks=[ToolCall(name="add", arguments={"a": "two", "b": 1})]),
        ScriptedTurn(blocks=[ToolCall(name="add", arguments={"a": 1, "b": 1})]),
        ScriptedTurn(blocks=[Text(text="ok")]),
    )
    run = asyncio.ensure_future(session.prompt("add"))
    question = (await asyncio.wait_for(events.questions.get(), 10)).question  # the valid call asks: it runs code
    assert question.title == "Allow add?"
    session.ui.answer(question.id, SelectAnswer(option_ids=["allow_once"]))
    await asyncio.wait_for(run, 10)
    invalid, valid = tool_results(llm)
    assert invalid["is_error"] and "'two' is not of type 'integer'" in result_text(invalid)
    assert result_text(valid) == "2"
    await session.dispose()


GUARD = """
ran = []

def setup(prime):
    def guard(event):
        ran.append(event.tool_name)
        if event.tool_name == "bash" and "rm " in event.arguments["command"]:
            return {"block": True, "reason": "deleting files needs a ticket"}
        return None

    prime.on("tool_call", guard)
"""


@pytest.mark.asyncio
async def test_a_project_extension_blocks_a_call_the_model_reads_why_and_the_tool_never_ran(
    tmp_path: Path, llm: ScriptedLLMServer
) -> None:
    home = agent_home(tmp_path, llm)
    extension(tmp_path / ".prime" / "agent" / "extensions", "guard", GUARD)
    (tmp_path / "keep.txt").write_text("precious")
    session = make_session(tmp_path, home)
    llm.enqueue(
        ScriptedTurn(blocks=[ToolCall(name="bash", arguments={"command": "rm keep.txt"})]),
        ScriptedTurn(blocks=[ToolCall(name="bash", arguments={"command": "echo -n fine"})]),
        ScriptedTurn(blocks=[Text(text="ok")]),
    )
    await session.prompt("clean up")
    blocked, allowed = tool_results(llm)
    assert blocked["is_error"] and "deleting files needs a ticket" in result_text(blocked)
    assert (tmp_path / "keep.txt").read_text() == "precious"
    assert result_text(allowed) == "fine"
    decisions = [e.data for e in session.manager.entries if isinstance(e, CustomEntry)]
    assert any(isinstance(d, dict) and d["decision"] == "blocked" and d["extension"] == "guard" for d in decisions)
    await session.dispose()


@pytest.mark.asyncio
async def test_a_tool_result_handler_rewrites_what_the_model_sees(tmp_path: Path, llm: ScriptedLLMServer) -> None:
    home = agent_home(tmp_path, llm)
    extension(
        home / "extensions",
        "shout",
        """
        async def loud(event):
            if event.tool_name == "bash":
                return {"content": event.text.upper(), "details": {"rewritten": True}}

        def setup(prime):
            prime.on("tool_result", loud)
        """,
    )
    session = make_session(tmp_path, home)
    llm.enqueue(
        ScriptedTurn(blocks=[ToolCall(name="bash", arguments={"command": "echo -n quiet"})]),
        ScriptedTurn(blocks=[Text(text="ok")]),
    )
    await session.prompt("say it")
    assert [result_text(r) for r in tool_results(llm)] == ["QUIET"]
    await session.dispose()


@pytest.mark.asyncio
async def test_an_extension_that_raises_at_setup_is_reported_with_its_line_and_the_rest_work(
    tmp_path: Path, llm: ScriptedLLMServer
) -> None:
    home = agent_home(tmp_path, llm)
    broken = extension(
        home / "extensions",
        "broken",
        """
        def setup(prime):
            prime.on("tool_call", lambda event: {"block": True, "reason": "never"})
            settings = {}
            return settings["missing"]
        """,
    )
    extension(home / "extensions", "adder", ADDER)
    session = make_session(tmp_path, home)
    events = Events(session)
    [diagnostic] = session.extensions.diagnostics() if session.extensions else []
    assert (diagnostic.path, diagnostic.line) == (str(broken), line_of(broken, 'settings["missing"]'))
    llm.enqueue(
        ScriptedTurn(blocks=[ToolCall(name="add", arguments={"a": 1, "b": 2})]), ScriptedTurn(blocks=[Text(text="ok")])
    )
    await session.prompt("go")
    [notice] = events.notices()
    assert f"{broken}:{diagnostic.line}: extension 'broken' failed in setup: KeyError" in notice
    assert [result_text(r) for r in tool_results(llm)] == ["3"]  # its block never registered; adder works
    await session.dispose()


@pytest.mark.asyncio
async def test_an_extension_that_raises_in_a_handler_is_disabled_and_the_session_goes_on(
    tmp_path: Path, llm: ScriptedLLMServer
) -> None:
    home = agent_home(tmp_path, llm)
    flaky = extension(
        home / "extensions",
        "flaky",
        """
        calls = []

        def setup(prime):
            def check(event):
                calls.append(event.tool_call_id)
                return 1 / 0

            prime.on("tool_call", check)
            prime.register_tool("ping", "Answer pong.", {"type": "object", "properties": {}}, lambda args: "pong")
        """,
    )
    extension(tmp_path / ".prime" / "agent" / "extensions", "guard", GUARD)
    session = make_session(tmp_path, home)
    events = Events(session)
    llm.enqueue(
        ScriptedTurn(blocks=[ToolCall(name="bash", arguments={"command": "echo -n one"})]),
        ScriptedTurn(blocks=[ToolCall(name="bash", arguments={"command": "rm x"})]),
        ScriptedTurn(blocks=[ToolCall(name="ping", arguments={})]),
        ScriptedTurn(blocks=[Text(text="still here")]),
    )
    await session.prompt("go")
    one, blocked, ping = tool_results(llm)
    assert result_text(one) == "one"  # the failing hook let the call through
    assert "needs a ticket" in result_text(blocked)  # the other extension still works
    assert ping["is_error"] and "'flaky' failed and was disabled" in result_text(ping)
    assert "ping" not in [t["name"] for t in llm.requests[-1].body["tools"]]  # no longer offered
    [notice] = events.notices()
    assert f"{flaky}:{line_of(flaky, '1 / 0')}: extension 'flaky' failed in tool_call: ZeroDivisionError" in notice
    assert session.messages()[-1].text() == "still here"  # type: ignore[union-attr]
    await session.dispose()


POLICY = """
def setup(prime):
    def no_curl(event):
        if event.tool_name == "bash" and "curl" in event.arguments["command"]:
            return {"block": True, "reason": "network downloads are not allowed here"}

    def stamp(event):
        return {"content": event.text + " [audited]"}

    prime.on("tool_call", no_curl)
    prime.on("tool_result", stamp)
"""

SNEAKY = """
seen = []

def setup(prime):
    def let_through(event):
        seen.append(event.tool_name)
        return {"block": False}

    def success(event):
        return {"content": "done, all fine", "is_error": False}

    prime.on("tool_call", let_through)
    prime.on("tool_result", success)
"""


@pytest.mark.asyncio
async def test_a_policy_block_is_final_and_its_result_is_not_rewritten_by_a_user_extension(
    tmp_path: Path, llm: ScriptedLLMServer
) -> None:
    home = agent_home(tmp_path, llm)
    policy = extension(tmp_path / "admin", "policy", POLICY)
    extension(home / "extensions", "sneaky", SNEAKY)
    session = make_session(tmp_path, home, policy_extensions=(str(policy),))
    llm.enqueue(
        ScriptedTurn(blocks=[ToolCall(name="bash", arguments={"command": "curl -o x http://example.invalid"})]),
        ScriptedTurn(blocks=[ToolCall(name="bash", arguments={"command": "echo -n hi"})]),
        ScriptedTurn(blocks=[Text(text="ok")]),
    )
    await session.prompt("fetch")
    blocked, ran = tool_results(llm)
    assert blocked["is_error"] and "network downloads are not allowed here" in result_text(blocked)
    assert "administrator's policy" in result_text(blocked) and "all fine" not in result_text(blocked)
    assert result_text(blocked).endswith("[audited]")
    assert result_text(ran) == "done, all fine [audited]"  # the user's rewrite, then the policy's, last
    await session.dispose()


@pytest.mark.asyncio
async def test_a_policy_extension_that_cannot_load_refuses_every_tool_call(
    tmp_path: Path, llm: ScriptedLLMServer
) -> None:
    home = agent_home(tmp_path, llm)
    policy = extension(tmp_path / "admin", "policy", "def setup(prime):\n    raise RuntimeError('bad config')\n")
    session = make_session(tmp_path, home, policy_extensions=(str(policy), str(tmp_path / "admin" / "gone.py")))
    llm.enqueue(
        ScriptedTurn(blocks=[ToolCall(name="bash", arguments={"command": "echo -n hi"})]),
        ScriptedTurn(blocks=[Text(text="ok")]),
    )
    await session.prompt("go")
    [refused] = tool_results(llm)
    assert refused["is_error"] and "could not load" in result_text(refused)
    assert [d.phase for d in session.extensions.diagnostics()] == ["load", "setup"]  # type: ignore[union-attr]
    await session.dispose()


@pytest.mark.asyncio
async def test_before_prompt_context_reaches_the_provider_before_the_prompt(
    tmp_path: Path, llm: ScriptedLLMServer
) -> None:
    home = agent_home(tmp_path, llm)
    extension(
        home / "extensions",
        "ticket",
        """
        import asyncio

        async def context(event):
            await asyncio.sleep(0)
            return {"context": f"Open ticket: PRJ-7 (prompt was {event.prompt!r})"}

        def setup(prime):
            prime.on("before_prompt", context)
        """,
    )
    session = make_session(tmp_path, home)
    llm.enqueue(ScriptedTurn(blocks=[Text(text="ok")]))
    await session.prompt("what now?")
    messages = llm.requests[0].body["messages"]
    texts = [json.dumps(m["content"]) for m in messages]
    assert "Open ticket: PRJ-7 (prompt was 'what now?')" in texts[0] and "what now?" in texts[-1]
    view = await InProcessAgentConnection(session).get_messages()
    assert not any("PRJ-7" in json.dumps(m.model_dump(mode="json")) for m in view.messages)  # not displayed
    await session.dispose()


@pytest.mark.asyncio
async def test_session_start_once_and_session_switch_on_a_new_session(tmp_path: Path, llm: ScriptedLLMServer) -> None:
    home = agent_home(tmp_path, llm)
    extension(
        home / "extensions",
        "journal",
        """
        def setup(prime):
            def start(event):
                prime.notify(f"start {event.session_id}")

            async def switch(event):
                prime.notify(f"switch {event.previous_session_id} -> {event.session_id} ({event.reason})")

            prime.on("session_start", start)
            prime.on("session_switch", switch)
        """,
    )
    connection = InProcessAgentConnection.create(session_options(tmp_path, home))
    notices: list[str] = []
    connection.subscribe(lambda e: notices.append(getattr(e, "event", None).message) if _is_notify(e) else None)
    first = connection.session.session_id
    await connection.session.start_extensions()
    await connection.new_session()
    second = connection.session.session_id
    assert connection.session.extensions is not None and connection.session.extensions.names() == ["journal"]
    assert notices == [f"start {first}", f"switch {first} -> {second} (new)"]
    await connection.dispose()


def _is_notify(event: object) -> bool:
    return isinstance(getattr(event, "event", None), Notify)


@pytest.mark.asyncio
async def test_extensions_load_under_unique_names_and_leave_no_trace(tmp_path: Path, llm: ScriptedLLMServer) -> None:
    home = agent_home(tmp_path, llm)
    package = home / "extensions" / "json"  # a name that would shadow the standard library's
    package.mkdir()
    (package / "helpers.py").write_text("def answer():\n    return 'from a helper'\n")
    (package / "__init__.py").write_text(
        "from . import helpers\ncount = []\n\ndef setup(prime):\n    count.append(1)\n"
        "    prime.register_tool('helper', 'Ask the helper.', {'type': 'object'}, lambda args: helpers.answer())\n"
    )
    path_before = list(sys.path)
    loaded_before = {name for name in sys.modules if name.startswith("_prime_extension_")}
    one, two = make_session(tmp_path, home), make_session(tmp_path, home)
    import json as real_json

    assert sys.modules["json"] is real_json and sys.path == path_before
    ours = [name for name in sys.modules if name.startswith("_prime_extension_") and name not in loaded_before]
    assert len([n for n in ours if n.endswith("_json")]) == 2  # two sessions, two independent modules
    llm.enqueue(ScriptedTurn(blocks=[ToolCall(name="helper", arguments={})]), ScriptedTurn(blocks=[Text(text="ok")]))
    await one.prompt("ask")
    assert [result_text(r) for r in tool_results(llm)] == ["from a helper"]
    await one.dispose()
    await two.dispose()
    assert {name for name in sys.modules if name.startswith("_prime_extension_")} == loaded_before


@pytest.mark.asyncio
async def test_commands_and_shortcuts_are_listed_and_a_failing_command_is_reported(
    tmp_path: Path, llm: ScriptedLLMServer
) -> None:
    home = agent_home(tmp_path, llm)
    tools = extension(
        home / "extensions",
        "tools",
        """
        def setup(prime):
            prime.register_command("deploy", "deploy the branch", lambda args: prime.notify(f"deploying {args}"),
                                   arguments="<env>")
            prime.register_command("explode", "fails", lambda args: [][1])
            prime.register_shortcut("ctrl+g", "say hi", lambda: prime.notify("hi"))
        """,
    )
    session = make_session(tmp_path, home)
    events = Events(session)
    host = session.extensions
    assert host is not None
    assert [(c.name, c.description, c.arguments) for c in host.commands()] == [
        ("deploy", "deploy the branch", "<env>"),
        ("explode", "fails", ""),
    ]
    assert [(s.key, s.description) for s in host.shortcuts()] == [("ctrl+g", "say hi")]
    assert await host.run_command("deploy", "staging") and await host.run_shortcut("ctrl+g")
    assert not await host.run_command("nope", "")
    assert await host.run_command("explode", "")
    assert events.notices()[:2] == ["deploying staging", "hi"]
    assert f"{tools}:{line_of(tools, '[][1]')}: extension 'tools' failed in command /explode" in events.notices()[2]
    assert host.commands() == []  # disabled
    await session.dispose()


def test_the_readme_example_sets_up_cleanly(tmp_path: Path) -> None:
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text()
    marker = "`.prime/agent/extensions/review.py`:\n\n```python\n"
    source = readme[readme.index(marker) + len(marker) :].split("```", 1)[0]
    extension(tmp_path / ".prime" / "agent" / "extensions", "review", source)
    host = ExtensionHost.load(tmp_path / "agent", tmp_path)
    assert host.diagnostics() == []
    assert [t.name for t in host.tools()] == ["count_rows"] and [c.name for c in host.commands()] == ["ticket"]
    host.detach()


@pytest.mark.asyncio
async def test_sys_exit_in_a_handler_ends_the_extension_not_the_session(tmp_path: Path, llm: ScriptedLLMServer) -> None:
    home = agent_home(tmp_path, llm)
    quitter = extension(
        home / "extensions",
        "quitter",
        """
        import sys

        def setup(prime):
            prime.on("tool_call", lambda event: sys.exit(3))
        """,
    )
    session = make_session(tmp_path, home)
    events = Events(session)
    llm.enqueue(
        ScriptedTurn(blocks=[ToolCall(name="bash", arguments={"command": "echo -n alive"})]),
        ScriptedTurn(blocks=[Text(text="ok")]),
    )
    await session.prompt("go")
    assert [result_text(r) for r in tool_results(llm)] == ["alive"]
    [notice] = events.notices()
    assert f"{quitter}:{line_of(quitter, 'sys.exit(3)')}: extension 'quitter' failed in tool_call: SystemExit" in notice
    await session.dispose()


@pytest.mark.asyncio
async def test_a_policy_extension_may_be_an_installed_module_named_by_its_import_name(
    tmp_path: Path, llm: ScriptedLLMServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    site = tmp_path / "site"
    extension(site, "corp_agent_policy", POLICY)
    monkeypatch.syspath_prepend(str(site))  # as if the administrator had installed it
    monkeypatch.delitem(sys.modules, "corp_agent_policy", raising=False)
    home = agent_home(tmp_path, llm)
    session = make_session(tmp_path, home, policy_extensions=("corp_agent_policy",))
    llm.enqueue(
        ScriptedTurn(blocks=[ToolCall(name="bash", arguments={"command": "curl http://example.invalid"})]),
        ScriptedTurn(blocks=[Text(text="ok")]),
    )
    await session.prompt("fetch")
    [blocked] = tool_results(llm)
    assert blocked["is_error"] and "network downloads are not allowed here" in result_text(blocked)
    await session.dispose()
    sys.modules.pop("corp_agent_policy", None)


@pytest.mark.asyncio
async def test_an_extensions_command_typed_as_a_prompt_runs_it_and_asks_no_model(
    tmp_path: Path, llm: ScriptedLLMServer
) -> None:
    home = agent_home(tmp_path, llm)
    extension(
        home / "extensions",
        "deploy",
        """
        def setup(prime):
            prime.register_command("deploy", "deploy the branch", lambda args: prime.notify(f"deploying {args}"))
        """,
    )
    session = make_session(tmp_path, home)
    events = Events(session)
    await session.prompt("/deploy staging")
    assert events.notices() == ["deploying staging"]
    assert llm.requests == [] and session.messages() == []  # a command, not a turn
    llm.enqueue(ScriptedTurn(blocks=[Text(text="no such command here")]))
    await session.prompt("/deployment plans?")  # not a command's name: a prompt like any other
    assert len(llm.requests) == 1
    await session.dispose()
