"""Print and JSON modes: run one prompt to completion without a terminal UI."""

from __future__ import annotations

import asyncio
import signal
import sys
from typing import TextIO

from prime_jupyter.protocol.codec import event_to_json, to_wire
from prime_jupyter.protocol.events import AgentEnd, SessionEvent

__all__ = ["run_headless"]


class _JsonWriter:
    """Writes one line per event and flushes once per event-loop pass, so bursts of deltas share a flush."""

    def __init__(self, out: TextIO) -> None:
        self._out = out
        self._flush_scheduled = False

    def line(self, text: str) -> None:
        self._out.write(text + "\n")
        if not self._flush_scheduled:
            self._flush_scheduled = True
            asyncio.get_running_loop().call_soon(self._flush)

    def _flush(self) -> None:
        self._flush_scheduled = False
        self._out.flush()


async def run_headless(session: object, text: str, images: list[object], json_mode: bool) -> int:
    """Run the prompt; print the answer (or events); return the exit code."""
    from prime_jupyter.ai.types import AssistantMessage, ImageContent
    from prime_jupyter.runtime.agent_session import AgentSession

    assert isinstance(session, AgentSession)
    writer = _JsonWriter(sys.stdout)
    last: list[AssistantMessage] = []

    def on_event(event: SessionEvent) -> None:
        if json_mode:
            writer.line(event_to_json(event))
        if isinstance(event, AgentEnd):
            last[:] = [m for m in event.messages if isinstance(m, AssistantMessage)][-1:]

    if json_mode:
        writer.line(_dumps(to_wire(session.manager.header)))
    session.subscribe(on_event)
    loop = asyncio.get_running_loop()
    loop.add_signal_handler(signal.SIGINT, lambda: asyncio.ensure_future(session.abort()))
    try:
        await session.prompt(text, [i for i in images if isinstance(i, ImageContent)] or None)
    finally:
        loop.remove_signal_handler(signal.SIGINT)
        sys.stdout.flush()
    final = last[0] if last else None
    if final is None or final.stop_reason in ("error", "aborted"):
        reason = final.error_message if final is not None else "the run produced no answer"
        print(f"error: {reason}", file=sys.stderr)
        return 130 if final is not None and final.stop_reason == "aborted" else 1
    if not json_mode:
        print(final.text())
    return 0


def _dumps(value: object) -> str:
    import json

    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))
