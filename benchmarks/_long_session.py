"""A long, realistic session transcript (JSONL version 3) for the resume benchmark.

Both agents read the same format (a `session` header line, then `{type, id, parentId, timestamp, …}`
entries chained by `parentId`), so one generator writes byte-identical entries for both; only where
the file lives differs. The mix repeats a working cycle: a user request, four assistant turns that
each call a tool (bash, read, edit, write) and get a result of about a kilobyte, and a final answer,
which averages about 820 bytes an entry, like the 22,004-entry / 18 MB session pi was measured with.
"""

from __future__ import annotations

import json
import random
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

__all__ = ["SessionText", "make_session"]

_WORDS = (
    "the module reads config value from file and returns parsed list of rows while kernel keeps state "
    "for each notebook cell so output stays small when tests check error path in loop over batch data "
    "frame column index plot figure axis label model loss epoch metric train split sample seed cache"
).split()
_TOOLS = ("bash", "read", "edit", "write")


class _Writer:
    """Builds entries with sequential ids, a parent chain and increasing timestamps."""

    def __init__(self, provider: str, model: str, start: datetime) -> None:
        self.rng = random.Random(1729)
        self.provider = provider
        self.model = model
        self.clock = start
        self.count = 0
        self.parent: str | None = None
        self.calls = 0

    def words(self, n: int) -> str:
        return " ".join(self.rng.choice(_WORDS) for _ in range(n))

    def entry(self, kind: str, **fields: object) -> str:
        self.count += 1
        self.clock += timedelta(milliseconds=1500 + self.rng.randrange(3000))
        entry_id = f"{self.count:08x}"
        stamp = self.clock.isoformat(timespec="milliseconds").replace("+00:00", "Z")
        line = {"type": kind, "id": entry_id, "parentId": self.parent, "timestamp": stamp, **fields}
        self.parent = entry_id
        return json.dumps(line, ensure_ascii=False, separators=(",", ":"))

    def millis(self) -> int:
        return int(self.clock.timestamp() * 1000)

    def assistant(self, content: list[dict[str, object]], stop: str) -> str:
        out = 40 + self.rng.randrange(400)
        usage = {
            "input": 1200 + self.count,
            "output": out,
            "cacheRead": 0,
            "cacheWrite": 0,
            "totalTokens": 1200 + self.count + out,
            "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0},
        }
        message = {
            "role": "assistant",
            "content": content,
            "api": "anthropic-messages",
            "provider": self.provider,
            "model": self.model,
            "usage": usage,
            "stopReason": stop,
            "timestamp": self.millis(),
        }
        return self.entry("message", message=message)


def _arguments(w: _Writer, tool: str) -> dict[str, object]:
    path = f"src/pkg_{w.rng.randrange(40)}/mod_{w.rng.randrange(200)}.py"
    if tool == "bash":
        return {"command": f"cd src && grep -rn '{w.words(2)}' . | head -40"}
    if tool == "read":
        return {"path": path}
    if tool == "edit":
        return {"path": path, "edits": [{"oldText": w.words(12), "newText": w.words(14)}]}
    return {"path": path, "content": "\n".join(f"    {w.words(8)}" for _ in range(6))}


def _tool_output(w: _Writer) -> str:
    return "\n".join(f"{w.rng.randrange(1, 900):>4}  {w.words(9)}" for _ in range(12))


def _cycle(w: _Writer) -> Iterator[str]:
    user = {"role": "user", "content": [{"type": "text", "text": w.words(25)}], "timestamp": w.millis()}
    yield w.entry("message", message=user)
    for tool in _TOOLS:
        w.calls += 1
        call_id = f"toolu_hist_{w.calls:06d}"
        call: dict[str, object] = {"type": "toolCall", "id": call_id, "name": tool, "arguments": _arguments(w, tool)}
        yield w.assistant([{"type": "text", "text": w.words(20)}, call], "toolUse")
        result = {
            "role": "toolResult",
            "toolCallId": call_id,
            "toolName": tool,
            "content": [{"type": "text", "text": _tool_output(w)}],
            "isError": False,
            "timestamp": w.millis(),
        }
        yield w.entry("message", message=result)
    yield w.assistant([{"type": "text", "text": w.words(90)}], "stop")


class SessionText:
    """The header fields and entry lines of one long session, ready to be written for either agent."""

    def __init__(self, entries: int, provider: str, model: str) -> None:
        start = datetime.now(UTC) - timedelta(days=30)
        self.session_id = str(uuid.uuid4())
        self.timestamp = start.isoformat(timespec="milliseconds").replace("+00:00", "Z")
        w = _Writer(provider, model, start)
        lines = [
            w.entry("model_change", provider=provider, modelId=model),
            w.entry("thinking_level_change", thinkingLevel="off"),
        ]
        while len(lines) < entries:  # whole cycles, so the transcript ends on a final answer
            lines.extend(_cycle(w))
        self.lines = lines

    def write(self, path: Path, cwd: str) -> int:
        """Write the transcript with a header naming `cwd`; return its size in bytes."""
        header = {"type": "session", "version": 3, "id": self.session_id, "timestamp": self.timestamp, "cwd": cwd}
        text = "\n".join([json.dumps(header, separators=(",", ":")), *self.lines]) + "\n"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        return len(text.encode())


def make_session(entries: int, provider: str, model: str) -> SessionText:
    """A session of at least `entries` entries (rounded up to a whole cycle of ten)."""
    return SessionText(entries, provider, model)
