"""Rewind in process: files and notebooks the agent changed put back, the conversation branched, conflicts
kept, and what code did named, with real tools, a real kernel and the scripted provider."""

from __future__ import annotations

import json
from pathlib import Path

import nbformat
import pytest

from prime_jupyter.ai.types import UserMessage
from prime_jupyter.runtime.agent_session import AgentSession
from prime_jupyter.runtime.changes import CHANGE_ENTRY
from prime_jupyter.runtime.factory import SessionOptions, create_agent_session
from prime_jupyter.runtime.rewind import REWIND_ENTRY
from prime_jupyter.sessions.entries import CustomEntry, MessageEntry
from prime_jupyter.sessions.manager import SessionManager
from prime_jupyter.testing import ScriptedLLMServer, ScriptedTurn, Text, ToolCall

TOOLS = ["read", "write", "edit", "bash", "ipython", "notebook_read", "notebook_edit"]


def session_in(tmp_path: Path, llm: ScriptedLLMServer) -> AgentSession:
    home = tmp_path / "agent"
    home.mkdir()
    provider = {"baseUrl": llm.base_url, "api": "anthropic-messages", "apiKey": "k", "models": [{"id": "m1"}]}
    (home / "models.json").write_text(json.dumps({"providers": {"scripted": provider}}))
    work = tmp_path / "work"
    work.mkdir(exist_ok=True)
    options = SessionOptions(cwd=work, model="scripted/m1", tools=TOOLS, agent_dir=home)
    return create_agent_session(options)


def calls(*blocks: ToolCall) -> ScriptedTurn:
    return ScriptedTurn(blocks=list(blocks))


def edit_call(path: str, old: str, new: str) -> ToolCall:
    return ToolCall(name="edit", arguments={"path": path, "edits": [{"oldText": old, "newText": new}]})


def user_entry(session: AgentSession, text: str) -> str:
    path = session.manager.path_to(session.manager.leaf_id)
    return next(
        e.id
        for e in path
        if isinstance(e, MessageEntry) and isinstance(e.message, UserMessage) and e.message.text() == text
    )


def notebook_sources(path: Path) -> list[str]:
    return [cell.source for cell in nbformat.read(path, as_version=4).cells]


@pytest.mark.asyncio
async def test_a_rewind_puts_back_files_and_notebooks_and_branches(tmp_path: Path, llm: ScriptedLLMServer) -> None:
    session = session_in(tmp_path, llm)
    work = Path(session.cwd)
    (work / "notes.txt").write_text("alpha\nbeta\n")
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("x = 1")])
    nbformat.write(notebook, work / "analysis.ipynb")
    try:
        llm.enqueue(ScriptedTurn(blocks=[Text(text="Looked.")]))
        await session.prompt("look around")
        llm.enqueue(
            calls(
                ToolCall(name="write", arguments={"path": "report.md", "content": "# Report\n"}),
                ToolCall(
                    name="edit", arguments={"path": "notes.txt", "edits": [{"oldText": "beta", "newText": "BETA"}]}
                ),
                ToolCall(
                    name="notebook_edit",
                    arguments={"path": "analysis.ipynb", "edits": [{"action": "insert", "source": "y = 2"}]},
                ),
            )
        )
        llm.enqueue(
            calls(
                ToolCall(
                    name="edit", arguments={"path": "notes.txt", "edits": [{"oldText": "alpha", "newText": "ALPHA"}]}
                )
            )
        )
        llm.enqueue(ScriptedTurn(blocks=[Text(text="Changed three things.")]))
        await session.prompt("change things")
        assert (work / "notes.txt").read_text() == "ALPHA\nBETA\n"
        assert notebook_sources(work / "analysis.ipynb") == ["y = 2", "x = 1"]
        entries_before = len(session.manager.entries)
        target = user_entry(session, "change things")

        report = await session.rewind(target)

        assert not (work / "report.md").exists()  # the agent made it
        assert (work / "notes.txt").read_text() == "alpha\nbeta\n"  # both edits undone
        assert notebook_sources(work / "analysis.ipynb") == ["x = 1"]
        assert sorted(report.restored) == ["analysis.ipynb", "notes.txt", "report.md"]
        assert report.conflicts == [] and report.left == [] and report.editor_text == "change things"
        # The conversation goes on from before the message; the old branch stays in the tree.
        assert [m.text() for m in session.messages() if isinstance(m, UserMessage)] == ["look around"]
        assert len(session.manager.entries) == entries_before + 1
        leaf = session.manager.get_entry(session.manager.leaf_id or "")
        assert isinstance(leaf, CustomEntry) and leaf.custom_type == REWIND_ENTRY
        llm.enqueue(ScriptedTurn(blocks=[Text(text="Fresh start.")]))
        await session.prompt("something else")
        reopened = SessionManager.open(session.manager.path)  # what is on disk says the same
        assert [e.message.text() for e in reopened.path_to(reopened.leaf_id) if isinstance(e, MessageEntry)] == [
            "look around",
            "Looked.",
            "something else",
            "Fresh start.",
        ]
    finally:
        await session.dispose()


@pytest.mark.asyncio
async def test_a_file_changed_since_is_kept_and_reported(tmp_path: Path, llm: ScriptedLLMServer) -> None:
    session = session_in(tmp_path, llm)
    work = Path(session.cwd)
    (work / "plan.txt").write_text("v1\n")
    try:
        llm.enqueue(calls(ToolCall(name="write", arguments={"path": "plan.txt", "content": "v2\n"})))
        llm.enqueue(ScriptedTurn(blocks=[Text(text="Wrote v2.")]))
        await session.prompt("write v2")
        (work / "plan.txt").write_text("v3, the user's\n")  # the user edits it afterwards

        report = await session.rewind(user_entry(session, "write v2"))

        assert (work / "plan.txt").read_text() == "v3, the user's\n"
        assert report.conflicts == ["plan.txt"] and report.restored == []
        assert "Kept, changed by someone else since: plan.txt." in report.summary
    finally:
        await session.dispose()


@pytest.mark.asyncio
async def test_the_summary_names_what_code_changed(tmp_path: Path, llm: ScriptedLLMServer) -> None:
    session = session_in(tmp_path, llm)
    work = Path(session.cwd)
    try:
        code = "sales = [1, 2, 3]\nopen('made-by-code.txt', 'w').write('x')"
        llm.enqueue(
            calls(
                ToolCall(name="ipython", arguments={"code": code}),
                ToolCall(name="bash", arguments={"command": "echo hi > made-by-bash.txt"}),
            )
        )
        llm.enqueue(ScriptedTurn(blocks=[Text(text="Done.")]))
        await session.prompt("make data")

        report = await session.rewind(user_entry(session, "make data"))

        text = report.summary
        assert report.code_runs == {"ipython": 1, "bash": 1}
        assert "Code ran since (1 ipython call, 1 bash call): what it changed on disk is not undone." in text
        assert "The kernel is not rolled back" in text and "`sales`" in text
        assert (work / "made-by-code.txt").exists() and (work / "made-by-bash.txt").exists()  # said, not undone
    finally:
        await session.dispose()


@pytest.mark.asyncio
async def test_only_a_user_message_on_the_branch_can_be_rewound_to(tmp_path: Path, llm: ScriptedLLMServer) -> None:
    session = session_in(tmp_path, llm)
    try:
        llm.enqueue(ScriptedTurn(blocks=[Text(text="Hi.")]))
        await session.prompt("hello")
        answer = session.manager.leaf_id or ""
        with pytest.raises(ValueError, match="not a user message"):
            await session.rewind(answer)
        with pytest.raises(ValueError, match="not a user message"):
            await session.rewind("no-such-entry")
    finally:
        await session.dispose()


@pytest.mark.asyncio
async def test_a_server_session_writes_back_only_inside_its_root(tmp_path: Path, llm: ScriptedLLMServer) -> None:
    home = tmp_path / "agent"
    home.mkdir()
    provider = {"baseUrl": llm.base_url, "api": "anthropic-messages", "apiKey": "k", "models": [{"id": "m1"}]}
    (home / "models.json").write_text(json.dumps({"providers": {"scripted": provider}}))
    root, outside = tmp_path / "root", tmp_path / "outside.txt"
    root.mkdir()
    outside.write_text("theirs")
    options = SessionOptions(cwd=root, model="scripted/m1", tools=["write"], agent_dir=home, file_root=root)
    session = create_agent_session(options)
    try:
        llm.enqueue(ScriptedTurn(blocks=[Text(text="Hi.")]))
        await session.prompt("hello")
        store = session.snapshots
        assert store is not None
        # A transcript entry naming a file outside the root (written by hand, or by another host).
        change = {"kind": "file", "path": str(outside), "key": str(outside), "shown": "outside.txt"}
        after = store.put(b"theirs")
        session.manager.append_custom(CHANGE_ENTRY, {**change, "before": store.put(b"old"), "after": after})

        report = await session.rewind(user_entry(session, "hello"))

        assert outside.read_text() == "theirs" and report.restored == []
        assert len(report.left) == 1 and "outside the server's root" in report.left[0]
    finally:
        await session.dispose()
