"""The session list (rename, delete) and `POST chat/command`: name, context, export, tree, fork, clone,
compact."""

from __future__ import annotations

import json
from pathlib import Path

import nbformat
import pytest
from kit.server import PrimeClient, text_of

from prime_jupyter.testing import ScriptedLLMServer, ScriptedTurn, Text, ToolCall


async def two_exchanges(prime: PrimeClient, llm: ScriptedLLMServer) -> str:
    session_id = await prime.new_session()
    for i in (1, 2):
        llm.enqueue(ScriptedTurn(blocks=[Text(text=f"answer {i}")]))
        await prime.turn(session_id, f"question {i}")
    return session_id


async def command(prime: PrimeClient, session_id: str, which: str, **args: object) -> dict[str, object]:
    return await prime.post("chat/command", {"sessionId": session_id, "command": which, **args})


async def test_sessions_are_listed_renamed_and_deleted(
    prime: PrimeClient, llm: ScriptedLLMServer, agent_dir: Path
) -> None:
    first = await two_exchanges(prime, llm)
    second = await prime.new_session()
    listed = (await prime.get("chat/sessions"))["sessions"]
    assert {s["sessionId"] for s in listed} == {first, second}
    assert next(s for s in listed if s["sessionId"] == first)["title"] == "question 1"
    await prime.call("PATCH", "chat/sessions", {"sessionId": first, "name": "  Renamed\nsession "})
    assert (await prime.session(first))["session"]["name"] == "Renamed session"  # one line
    await prime.call("DELETE", "chat/sessions", {"sessionId": first})
    assert [s["sessionId"] for s in (await prime.get("chat/sessions"))["sessions"]] == [second]
    assert not list((agent_dir / "sessions").glob(f"{first}*"))
    assert (await prime.status("GET", "chat/session", params={"sessionId": first}))[0] == 404


async def test_deleting_a_session_mid_run_ends_its_streams_with_the_aborted_run(
    prime: PrimeClient, llm: ScriptedLLMServer, agent_dir: Path
) -> None:
    session_id = await prime.new_session()
    llm.enqueue(ScriptedTurn(blocks=[Text(text="word " * 200, chunks=200)], chunk_delay_s=0.01))
    turn: list[dict[str, object]] = []
    async with prime.events(session_id) as sse:
        async with prime.chat({"sessionId": session_id, "message": "go"}) as stream:
            async for frame in stream:
                turn.append(frame)
                if len(turn) == 5:
                    await prime.call("DELETE", "chat/sessions", {"sessionId": session_id})
        live: list[dict[str, object]] = []
        with pytest.raises(StopAsyncIteration):
            while True:
                live.append((await sse.frame())[1])
    for frames in (turn, live):  # not an "internal" error: the run was stopped, and says so
        assert frames[-1]["type"] == "done" and frames[-1]["stopReason"] == "aborted"
    assert not list((agent_dir / "sessions").glob(f"{session_id}*"))


async def test_name_and_context(prime: PrimeClient, llm: ScriptedLLMServer) -> None:
    session_id = await two_exchanges(prime, llm)
    assert await command(prime, session_id, "name", name="My work") == {"command": "name", "name": "My work"}
    context = await command(prime, session_id, "context")
    assert context["messages"] == 4 and context["contextWindow"] == 100_000 and context["tokens"] > 0


async def test_export_writes_html_and_jsonl(prime: PrimeClient, llm: ScriptedLLMServer, jp_root_dir: Path) -> None:
    session_id = await two_exchanges(prime, llm)
    html = await command(prime, session_id, "export", path="out/chat.html")
    assert html == {"command": "export", "path": str(jp_root_dir / "out" / "chat.html"), "format": "html"}
    assert "answer 2" in (jp_root_dir / "out" / "chat.html").read_text()
    jsonl = await command(prime, session_id, "export", path="copy.jsonl")
    lines = (jp_root_dir / "copy.jsonl").read_text().split("\n")
    assert jsonl["format"] == "jsonl" and json.loads(lines[0])["id"] == session_id


async def test_an_export_without_a_path_never_doubles_or_resurrects_its_session(
    prime: PrimeClient, llm: ScriptedLLMServer
) -> None:
    """Regression (issue 27, item 2): the export was taken for the session itself: listed twice, and
    reopened from the copy after the delete."""
    session_id = await two_exchanges(prime, llm)
    first = await command(prime, session_id, "export", format="jsonl")
    assert await command(prime, session_id, "export", format="jsonl") == first
    assert [s["sessionId"] for s in (await prime.get("chat/sessions"))["sessions"]] == [session_id]
    await prime.call("DELETE", "chat/sessions", {"sessionId": session_id})
    assert (await prime.status("GET", "chat/session", params={"sessionId": session_id}))[0] == 404
    assert (await prime.get("chat/sessions"))["sessions"] == []
    assert Path(str(first["path"])).is_file()  # the export stays: it is the user's copy


async def test_a_path_ending_in_ipynb_exports_a_notebook(
    prime: PrimeClient, llm: ScriptedLLMServer, jp_root_dir: Path
) -> None:
    session_id = await two_exchanges(prime, llm)
    answer = await command(prime, session_id, "export", path="out/chat.ipynb")
    assert answer == {"command": "export", "path": str(jp_root_dir / "out" / "chat.ipynb"), "format": "ipynb"}
    notebook = nbformat.read(jp_root_dir / "out" / "chat.ipynb", as_version=4)
    nbformat.validate(notebook)
    assert [cell.source for cell in notebook.cells][-1] == "answer 2"
    assert {cell.metadata["prime"]["session"] for cell in notebook.cells} == {session_id}


async def test_moving_in_the_tree_tells_every_client_to_resync(prime: PrimeClient, llm: ScriptedLLMServer) -> None:
    session_id = await two_exchanges(prime, llm)
    messages = (await prime.session(session_id))["messages"]
    second_question = messages[2]["id"]
    async with prime.events(session_id) as sse:
        await sse.frame()
        tree = await command(prime, session_id, "tree", entryId=second_question)
        assert (await sse.frame())[1] == {"type": "resync-required", "reason": "history-changed"}
    assert tree["editorText"] == "question 2" and tree["leafId"] == messages[1]["id"]
    assert second_question in [node["id"] for node in tree["nodes"]]
    assert [m["id"] for m in (await prime.session(session_id))["messages"]] == [m["id"] for m in messages[:2]]
    llm.enqueue(ScriptedTurn(blocks=[Text(text="another answer")]))
    await prime.turn(session_id, "question 2, again")
    assert len((await command(prime, session_id, "tree"))["nodes"]) > len(tree["nodes"])


async def test_fork_and_clone_make_new_sessions_and_leave_the_source(
    prime: PrimeClient, llm: ScriptedLLMServer
) -> None:
    session_id = await two_exchanges(prime, llm)
    source = (await prime.session(session_id))["messages"]
    fork = await command(prime, session_id, "fork", entryId=source[2]["id"])
    assert fork["selectedText"] == "question 2" and fork["sessionId"] != session_id
    forked = await prime.session(str(fork["sessionId"]))
    assert forked["messages"] == source[:2] and forked["model"] == {"provider": "scripted", "id": "m1"}
    clone = await command(prime, session_id, "clone")
    assert (await prime.session(str(clone["sessionId"])))["messages"] == source
    assert (await prime.session(session_id))["messages"] == source
    llm.enqueue(ScriptedTurn(blocks=[Text(text="in the fork")]))
    assert text_of(await prime.turn(str(fork["sessionId"]), "a different question 2")) == "in the fork"
    listed = {s["sessionId"]: s for s in (await prime.get("chat/sessions"))["sessions"]}
    assert listed[str(fork["sessionId"])]["parentSession"].endswith(f"{session_id}.jsonl")


@pytest.mark.prime_settings(compaction={"keepRecentTokens": 10})
async def test_compaction_keeps_the_chat_view(prime: PrimeClient, llm: ScriptedLLMServer) -> None:
    session_id = await prime.new_session()
    for i in range(3):
        llm.enqueue(ScriptedTurn(blocks=[Text(text=f"answer {i} " * 200)]))
        await prime.turn(session_id, f"question {i} " * 200)
    snapshot = await prime.session(session_id)
    before = snapshot["messages"]
    llm.enqueue(ScriptedTurn(blocks=[Text(text="## Goal\nthe summary")]), ScriptedTurn(blocks=[Text(text="prefix")]))
    result = await command(prime, session_id, "compact")
    assert result["compacted"] and "the summary" in str(result["summary"])
    assert (await prime.session(session_id))["messages"] == before
    leaf = (await command(prime, session_id, "tree"))["leafId"]  # the compaction entry
    await command(prime, session_id, "tree", entryId=leaf)  # stays put, but recounts the usage
    assert (await prime.session(session_id))["usage"] == snapshot["usage"]  # compacted messages cost too
    llm.enqueue(ScriptedTurn(blocks=[ToolCall(name="read", arguments={"path": "nothing.txt"})]))
    llm.enqueue(ScriptedTurn(blocks=[Text(text="after")]))
    await prime.turn(session_id, "go on")
    assert "the summary" in json.dumps(llm.requests[-2].body)
    assert len((await prime.session(session_id))["messages"]) == len(before) + 3  # the result joins its call
