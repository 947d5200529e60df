"""At start-up the bridge cancels the questions earlier server processes left pending, and leaves alone
those of a server that is still running on the same agent dir."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from prime_jupyter.ai.types import AssistantMessage, ToolCall, ToolResultMessage, UserMessage
from prime_jupyter.protocol.frames import QuestionResolvedFrame
from prime_jupyter.protocol.questions import Question
from prime_jupyter.protocol.wire import dump_json
from prime_jupyter.server.config import BridgeConfig
from prime_jupyter.server.host.bridge import PrimeBridge
from prime_jupyter.server.host.dialogs import RESTART_TEXT, StoredQuestions
from prime_jupyter.sessions.entries import MessageEntry
from prime_jupyter.sessions.manager import SessionManager


def asked(sessions: Path, cwd: Path) -> SessionManager:
    """A transcript whose last message asks a question (the run died there)."""
    manager = SessionManager.create(cwd, sessions)
    manager.append_message(UserMessage(content="go"))
    call = ToolCall(id="call-1", name="ask", arguments={"question": "ok?", "kind": "confirm"})
    manager.append_message(
        AssistantMessage(
            content=[call],
            api="anthropic-messages",
            provider="anthropic",
            model="claude-sonnet-5-5",
            stop_reason="toolUse",
        )
    )
    return manager


def store(config: BridgeConfig, session_id: str, pid: int) -> Path:
    question = Question(id="q-1", kind="confirm", title="ok?", timeout_ms=60_000, expires_at=0, tool_call_id="call-1")
    path = config.questions_dir / f"{session_id}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(dump_json(StoredQuestions(session_id=session_id, questions=[question], pid=pid)))
    return path


def results(manager: SessionManager) -> list[ToolResultMessage]:
    reopened = SessionManager.open(manager.path)  # type: ignore[arg-type]
    return [
        e.message for e in reopened.entries if isinstance(e, MessageEntry) and isinstance(e.message, ToolResultMessage)
    ]


@pytest.mark.asyncio
async def test_start_cancels_what_dead_servers_left_and_spares_live_ones(tmp_path: Path) -> None:
    config = BridgeConfig(agent_dir=tmp_path / "agent", root_dir=tmp_path)
    config.agent_dir.mkdir()
    (config.agent_dir / "settings.json").write_text('{"tools": ["read"]}')
    finished = await asyncio.create_subprocess_exec("true")
    await finished.wait()
    dead_pid = finished.pid  # reaped: the pid names no process now
    orphan, busy = asked(config.sessions_dir, tmp_path), asked(config.sessions_dir, tmp_path)
    living = await asyncio.create_subprocess_exec("sleep", "30")
    try:
        orphan_file = store(config, orphan.session_id, dead_pid)
        busy_file = store(config, busy.session_id, living.pid)
        gone_file = store(config, "01a22907-0000-7000-8000-00000000dead", dead_pid)
        bridge = PrimeBridge(config)
        await bridge.start()
        await asyncio.wait_for(bridge.swept.wait(), 10)
        assert [r.text() for r in results(orphan)] == [RESTART_TEXT]
        assert not orphan_file.exists() and not gone_file.exists()
        assert results(busy) == [] and busy_file.exists()
        live = await bridge.get(orphan.session_id)  # its clients hear about it when it opens
        replayed = [e.json for e in live.ring.since(0) or []]
        assert replayed == [dump_json(QuestionResolvedFrame(id="q-1", cancelled="shutdown"))]
        await bridge.shutdown()
    finally:
        living.kill()
        await living.wait()
