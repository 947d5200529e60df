"""Approvals in process: a call the mode asks about is a pending `select` question tied to its tool call;
allow once, allow always, reject with a reason the model reads; plan mode; a headless run refuses with
a hint; the mode is recorded in the transcript and comes back on resume."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from prime_jupyter.ai.types import ToolResultMessage
from prime_jupyter.errors import PermissionModeError
from prime_jupyter.protocol.events import AgentEnd, PermissionModeChanged, QuestionAsked, SessionEvent
from prime_jupyter.protocol.questions import SelectAnswer
from prime_jupyter.runtime.agent_session import AgentSession
from prime_jupyter.runtime.factory import SessionOptions, create_agent_session
from prime_jupyter.runtime.permissions import PermissionMode
from prime_jupyter.sessions.entries import CustomEntry
from prime_jupyter.testing import ScriptedLLMServer, ScriptedTurn, Text, ToolCall


def agent_home(tmp_path: Path, llm: ScriptedLLMServer, **settings: object) -> Path:
    home = tmp_path / "agent"
    home.mkdir(exist_ok=True)
    provider = {"baseUrl": llm.base_url, "api": "anthropic-messages", "apiKey": "k", "models": [{"id": "m1"}]}
    (home / "models.json").write_text(json.dumps({"providers": {"scripted": provider}}))
    (home / "settings.json").write_text(json.dumps(settings))
    return home


def make_session(
    tmp_path: Path,
    llm: ScriptedLLMServer,
    permission: PermissionMode | None = "ask",
    *,
    interactive: bool = True,
    **options: Any,
) -> AgentSession:
    home = options.pop("agent_dir", None) or agent_home(tmp_path, llm)
    return create_agent_session(
        SessionOptions(
            cwd=tmp_path,
            model="scripted/m1",
            tools=options.pop("tools", ["read", "write", "bash"]),
            agent_dir=home,
            interactive=interactive,
            permission_mode=permission,
            **options,
        )
    )


def bash(command: str) -> ToolCall:
    return ToolCall(name="bash", arguments={"command": command})


WRITE = ToolCall(name="write", arguments={"path": "out.txt", "content": "hello\n"})


class Asked:
    """The session's events, and each approval as it is asked."""

    def __init__(self, session: AgentSession) -> None:
        self.events: list[SessionEvent] = []
        self.questions: asyncio.Queue[QuestionAsked] = asyncio.Queue()
        self.ends: asyncio.Queue[AgentEnd] = asyncio.Queue()
        session.subscribe(self._on)

    def _on(self, event: SessionEvent) -> None:
        self.events.append(event)
        if isinstance(event, QuestionAsked):
            self.questions.put_nowait(event)
        elif isinstance(event, AgentEnd):
            self.ends.put_nowait(event)

    async def next(self) -> QuestionAsked:
        return await asyncio.wait_for(self.questions.get(), timeout=10)

    async def run_ended(self) -> None:
        await asyncio.wait_for(self.ends.get(), timeout=10)


def results(session: AgentSession) -> list[ToolResultMessage]:
    return [m for m in session.messages() if isinstance(m, ToolResultMessage)]


def decisions(session: AgentSession) -> list[Any]:
    return [e.data for e in session.manager.entries if isinstance(e, CustomEntry)]


@pytest.mark.asyncio
async def test_an_approval_is_a_select_question_tied_to_its_call_and_allow_once_runs_it(
    tmp_path: Path, llm: ScriptedLLMServer
) -> None:
    session = make_session(tmp_path, llm)
    asked = Asked(session)
    llm.enqueue(ScriptedTurn(blocks=[bash("echo hi")]), ScriptedTurn(blocks=[Text(text="done")]))
    run = asyncio.ensure_future(session.prompt("go"))
    question = (await asked.next()).question
    call_id = next(m for m in session.messages() if m.role == "assistant").tool_calls()[0].id  # type: ignore[union-attr]
    assert (question.kind, question.tool_call_id, question.message) == ("select", call_id, "echo hi")
    assert [o.id for o in question.options] == ["allow_once", "allow_always", "reject_once"]
    assert question.timeout_ms == 0  # an approval waits: it never times out into "yes"
    assert session.ui.answer(question.id, SelectAnswer(option_ids=["allow_once"]))
    await asyncio.wait_for(run, timeout=10)
    assert results(session)[0].text().strip() == "hi" and not results(session)[0].is_error
    assert [d["decision"] for d in decisions(session)] == ["allow_once"]
    await session.dispose()


@pytest.mark.asyncio
async def test_allow_once_asks_again_for_the_next_identical_call(tmp_path: Path, llm: ScriptedLLMServer) -> None:
    session = make_session(tmp_path, llm)
    asked = Asked(session)
    llm.enqueue(
        ScriptedTurn(blocks=[bash("echo 1")]),
        ScriptedTurn(blocks=[bash("echo 1")]),
        ScriptedTurn(blocks=[Text(text="ok")]),
    )
    run = asyncio.ensure_future(session.prompt("go"))
    for _ in range(2):
        session.ui.answer((await asked.next()).question.id, SelectAnswer(option_ids=["allow_once"]))
    await asyncio.wait_for(run, timeout=10)
    assert len(results(session)) == 2
    await session.dispose()


@pytest.mark.asyncio
async def test_allow_always_does_not_ask_for_a_second_identical_call(tmp_path: Path, llm: ScriptedLLMServer) -> None:
    session = make_session(tmp_path, llm)
    asked = Asked(session)
    llm.enqueue(
        ScriptedTurn(blocks=[bash("echo -n one")]),
        ScriptedTurn(blocks=[bash("echo -n two")]),
        ScriptedTurn(blocks=[Text(text="ok")]),
    )
    run = asyncio.ensure_future(session.prompt("go"))
    session.ui.answer((await asked.next()).question.id, SelectAnswer(option_ids=["allow_always"]))
    await asyncio.wait_for(run, timeout=10)
    assert [r.text().strip() for r in results(session)] == ["one", "two"]
    assert asked.questions.empty()
    assert decisions(session)[0]["rule"] == "bash commands starting with `echo`"
    await session.dispose()


@pytest.mark.asyncio
async def test_a_rejection_with_a_reason_reaches_the_model_and_the_call_does_not_run(
    tmp_path: Path, llm: ScriptedLLMServer
) -> None:
    session = make_session(tmp_path, llm)
    asked = Asked(session)
    llm.enqueue(ScriptedTurn(blocks=[WRITE]), ScriptedTurn(blocks=[Text(text="ok")]))
    run = asyncio.ensure_future(session.prompt("go"))
    question = (await asked.next()).question
    assert question.message == "out.txt\n\nhello\n"  # the approval shows the change
    session.ui.answer(question.id, SelectAnswer(option_ids=["reject_once"], text="not that file"))
    await asyncio.wait_for(run, timeout=10)
    result = results(session)[0]
    assert result.is_error and 'They said: "not that file"' in result.text()
    assert not (tmp_path / "out.txt").exists()
    last = llm.requests[-1].body
    assert isinstance(last, dict) and "not that file" in json.dumps(last["messages"][-1])  # the model read it
    assert decisions(session)[0] | {"toolCallId": None} == {
        "toolCallId": None,
        "toolName": "write",
        "decision": "reject_once",
        "mode": "ask",
        "reason": "not that file",
    }
    await session.dispose()


@pytest.mark.asyncio
async def test_accept_edits_runs_changes_and_asks_for_commands(tmp_path: Path, llm: ScriptedLLMServer) -> None:
    session = make_session(tmp_path, llm, "accept-edits")
    asked = Asked(session)
    llm.enqueue(ScriptedTurn(blocks=[WRITE, bash("cat out.txt")]), ScriptedTurn(blocks=[Text(text="ok")]))
    run = asyncio.ensure_future(session.prompt("go"))
    question = (await asked.next()).question
    assert question.title == "Allow bash?" and (tmp_path / "out.txt").read_text() == "hello\n"
    session.ui.answer(question.id, SelectAnswer(option_ids=["allow_once"]))
    await asyncio.wait_for(run, timeout=10)
    assert results(session)[1].text().strip() == "hello"
    await session.dispose()


@pytest.mark.asyncio
async def test_auto_asks_nothing(tmp_path: Path, llm: ScriptedLLMServer) -> None:
    session = make_session(tmp_path, llm, "auto")
    asked = Asked(session)
    llm.enqueue(ScriptedTurn(blocks=[WRITE, bash("cat out.txt")]), ScriptedTurn(blocks=[Text(text="ok")]))
    await asyncio.wait_for(session.prompt("go"), timeout=10)
    assert asked.questions.empty() and results(session)[1].text().strip() == "hello"
    await session.dispose()


@pytest.mark.asyncio
async def test_plan_mode_offers_only_read_only_tools_tells_the_model_and_refuses_others(
    tmp_path: Path, llm: ScriptedLLMServer
) -> None:
    session = make_session(tmp_path, llm, "plan")
    llm.enqueue(ScriptedTurn(blocks=[WRITE]), ScriptedTurn(blocks=[Text(text="the plan")]))
    await asyncio.wait_for(session.prompt("go"), timeout=10)
    body = llm.requests[0].body
    assert isinstance(body, dict)
    assert sorted(t["name"] for t in body["tools"]) == ["ask", "read"]
    assert "plan mode" in json.dumps(body["system"])
    assert "plan mode" in results(session)[0].text() and not (tmp_path / "out.txt").exists()
    await session.dispose()


@pytest.mark.asyncio
async def test_a_headless_run_in_ask_refuses_with_the_hint(tmp_path: Path, llm: ScriptedLLMServer) -> None:
    session = make_session(tmp_path, llm, "ask", interactive=False)
    asked = Asked(session)
    llm.enqueue(ScriptedTurn(blocks=[bash("echo hi")]), ScriptedTurn(blocks=[Text(text="ok")]))
    await asyncio.wait_for(session.prompt("go"), timeout=10)
    assert asked.questions.empty()
    assert "--permission-mode auto" in results(session)[0].text() and results(session)[0].is_error
    await session.dispose()


def test_without_a_mode_a_person_gets_ask_and_a_headless_run_gets_auto(tmp_path: Path, llm: ScriptedLLMServer) -> None:
    assert make_session(tmp_path, llm, None).permission_mode == "ask"
    assert make_session(tmp_path, llm, None, interactive=False).permission_mode == "auto"


def test_settings_json_sets_the_mode_and_the_host_clamps_it(tmp_path: Path, llm: ScriptedLLMServer) -> None:
    home = agent_home(tmp_path, llm, permissionMode="accept-edits")
    assert make_session(tmp_path, llm, None, agent_dir=home).permission_mode == "accept-edits"
    clamped = make_session(
        tmp_path, llm, None, agent_dir=home, allowed_permission_modes=("ask", "plan"), default_permission_mode="plan"
    )
    assert clamped.permission_mode == "plan"


def test_a_mode_the_host_forbids_is_refused(tmp_path: Path, llm: ScriptedLLMServer) -> None:
    with pytest.raises(PermissionModeError, match="'auto' is not allowed"):
        make_session(tmp_path, llm, "auto", allowed_permission_modes=("ask",))
    session = make_session(tmp_path, llm, "ask", allowed_permission_modes=("ask", "plan"))
    with pytest.raises(PermissionModeError, match="choose from ask, plan"):
        session.set_permission_mode("auto")
    assert session.permission_mode == "ask"


@pytest.mark.asyncio
async def test_the_mode_is_recorded_and_restored_on_resume(tmp_path: Path, llm: ScriptedLLMServer) -> None:
    session = make_session(tmp_path, llm, "ask")
    events: list[SessionEvent] = []
    session.subscribe(events.append)
    session.set_permission_mode("plan")
    assert events == [PermissionModeChanged("plan")]
    session.save()
    path = session.transcript_path
    await session.dispose()
    resumed = make_session(tmp_path, llm, None, mode="resume", resume=str(path))
    assert resumed.permission_mode == "plan"
    await resumed.dispose()


@pytest.mark.asyncio
async def test_switching_to_auto_during_a_pending_approval_applies_to_the_next_call(
    tmp_path: Path, llm: ScriptedLLMServer
) -> None:
    session = make_session(tmp_path, llm, "ask")
    asked = Asked(session)
    llm.enqueue(
        ScriptedTurn(blocks=[bash("echo a")]),
        ScriptedTurn(blocks=[bash("echo b")]),
        ScriptedTurn(blocks=[Text(text="k")]),
    )
    run = asyncio.ensure_future(session.prompt("go"))
    question = (await asked.next()).question
    session.set_permission_mode("auto")
    session.ui.answer(question.id, SelectAnswer(option_ids=["allow_once"]))
    await asyncio.wait_for(run, timeout=10)
    assert [r.text().strip() for r in results(session)] == ["a", "b"] and asked.questions.empty()
    await session.dispose()


@pytest.mark.asyncio
async def test_the_notebook_tools_are_classified_by_name(tmp_path: Path, llm: ScriptedLLMServer) -> None:
    """notebook_read reads (never asks), notebook_edit changes (asks in ask, runs in accept-edits)."""
    session = make_session(tmp_path, llm, "ask", tools=["notebook_read", "notebook_edit"])
    asked = Asked(session)
    insert = {"path": "nb.ipynb", "edits": [{"action": "insert", "source": "x = 1"}]}
    llm.enqueue(
        ScriptedTurn(blocks=[ToolCall(name="notebook_read", arguments={"path": "nb.ipynb"})]),
        ScriptedTurn(blocks=[ToolCall(name="notebook_edit", arguments=insert)]),
        ScriptedTurn(blocks=[Text(text="ok")]),
    )
    run = asyncio.ensure_future(session.prompt("go"))
    question = (await asked.next()).question
    assert question.title == "Allow notebook_edit?" and len(results(session)) == 1  # the read ran unasked
    session.set_permission_mode("accept-edits")  # and now edits go through: this one is still answered
    session.ui.answer(question.id, SelectAnswer(option_ids=["allow_once"]))
    await asyncio.wait_for(run, timeout=30)
    assert (tmp_path / "nb.ipynb").exists() and not results(session)[1].is_error
    await session.dispose()


@pytest.mark.asyncio
async def test_allow_always_rules_come_back_when_the_session_is_resumed(tmp_path: Path, llm: ScriptedLLMServer) -> None:
    session = make_session(tmp_path, llm)
    asked = Asked(session)
    llm.enqueue(ScriptedTurn(blocks=[bash("git status")]), ScriptedTurn(blocks=[Text(text="ok")]))
    run = asyncio.ensure_future(session.prompt("go"))
    session.ui.answer((await asked.next()).question.id, SelectAnswer(option_ids=["allow_always"]))
    await asyncio.wait_for(run, timeout=10)
    path = session.transcript_path
    await session.dispose()
    resumed = make_session(tmp_path, llm, None, mode="resume", resume=str(path))
    assert resumed.permission_mode == "ask"
    assert resumed.permissions.decide("bash", {"command": "git status -s"}) == "allow"
    assert resumed.permissions.decide("bash", {"command": "git push"}) == "ask"
    await resumed.dispose()


@pytest.mark.asyncio
async def test_a_plan_ends_with_a_question_that_switches_the_mode_and_goes_on(
    tmp_path: Path, llm: ScriptedLLMServer
) -> None:
    session = make_session(tmp_path, llm, "plan")
    asked = Asked(session)
    llm.enqueue(ScriptedTurn(blocks=[Text(text="1. write out.txt")]), ScriptedTurn(blocks=[WRITE]))
    llm.enqueue(ScriptedTurn(blocks=[Text(text="done")]))
    await asyncio.wait_for(session.prompt("plan it"), timeout=10)
    question = (await asked.next()).question
    assert question.title == "Carry out the plan?" and question.tool_call_id is None
    assert [o.id for o in question.options] == ["accept-edits", "ask", "auto", "plan"]
    session.ui.answer(question.id, SelectAnswer(option_ids=["accept-edits"]))
    await asked.run_ended()  # the plan's run
    await asked.run_ended()  # the run that carried it out
    assert session.permission_mode == "accept-edits" and (tmp_path / "out.txt").read_text() == "hello\n"
    assert "Go ahead: carry out the plan." in json.dumps(llm.requests[1].body)
    await session.dispose()


@pytest.mark.asyncio
async def test_a_prompt_withdraws_the_plan_question(tmp_path: Path, llm: ScriptedLLMServer) -> None:
    session = make_session(tmp_path, llm, "plan")
    asked = Asked(session)
    llm.enqueue(ScriptedTurn(blocks=[Text(text="a plan")]), ScriptedTurn(blocks=[Text(text="another plan")]))
    await asyncio.wait_for(session.prompt("plan it"), timeout=10)
    question = (await asked.next()).question
    first = asyncio.ensure_future(session.prompt("no, plan differently"))
    await asyncio.wait_for(first, timeout=10)
    assert question.id not in [q.id for q in session.ui.pending()] and session.permission_mode == "plan"
    await session.dispose()
