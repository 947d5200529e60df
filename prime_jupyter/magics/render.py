"""A `%%prime` cell's output: session events folded into blocks, drawn as displays updated in place.

One module on purpose: when the Python view fold (`protocol/view.py`) lands, `CellFold` is the part
it replaces. Threads: `CellFold.apply` and `Throttle` run on the agent's loop (the listener), `CellDisplay`
on the shell's thread (display messages belong to the cell being run); the fold's lock joins them.

Each text segment of the answer is one Markdown display, each tool call one compact collapsible block
(updated when it ends); code the `ipython` tool runs in this kernel shows its own outputs between them.
Updates are throttled (`Throttle`, at most ~10 a second) however fast deltas come; structure (a new
block, a finished tool) is drawn at once, so a tool's block precedes the outputs of its code.
"""

from __future__ import annotations

import asyncio
import html
import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal, Protocol, TypeAlias

from pydantic import JsonValue

from prime_jupyter.ai.events import TextDeltaEvent, TextStartEvent
from prime_jupyter.ai.types import AssistantMessage
from prime_jupyter.protocol.events import MessageEnd, MessageUpdate, SessionEvent, ToolExecutionEnd, ToolExecutionStart

__all__ = ["Bundle", "CellDisplay", "CellFold", "Publisher", "Throttle"]

Bundle: TypeAlias = dict[str, str]
Change: TypeAlias = Literal["delta", "structure"] | None
_UPDATE_INTERVAL_S = 0.1


@dataclass
class _Text:
    chunks: list[str] = field(default_factory=list)
    version: int = 0
    open: bool = True

    def bundle(self) -> Bundle:
        text = "".join(self.chunks)
        return {"text/markdown": text, "text/plain": text}


@dataclass
class _Tool:
    name: str
    args: dict[str, JsonValue]
    status: Literal["running", "ok", "error"] = "running"
    result: str = ""
    outputs: list[Bundle] = field(default_factory=list)
    version: int = 0

    def bundle(self, show_result: bool) -> Bundle:
        mark = {"running": "…", "ok": "✓", "error": "✗"}[self.status]
        code = self.args.get("code")
        body = code if isinstance(code, str) else json.dumps(self.args, indent=1, ensure_ascii=False)
        first = body.strip().splitlines()[0][:80] if body.strip() else ""
        result = self.result if (show_result or self.status == "error") else ""
        parts = [
            f"<details><summary><code>{html.escape(self.name)}</code> {mark} <code>{html.escape(first)}</code>",
            f"</summary><pre>{html.escape(body)}</pre>",
            f"<pre>{html.escape(result)}</pre>" if result else "",
            "</details>",
        ]
        plain = f"[{self.name} {mark}] {first}" + (f"\n{result}" if result else "")
        return {"text/html": "".join(parts), "text/plain": plain}


@dataclass
class _Note:
    text: str
    version: int = 0

    def bundle(self) -> Bundle:
        return {"text/markdown": f"*{self.text}*", "text/plain": self.text}


_Block: TypeAlias = _Text | _Tool | _Note


class CellFold:
    """The cell's view of one run: blocks in order. `apply` says what changed (for the throttle)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.blocks: list[_Block] = []
        self._tools: dict[str, _Tool] = {}

    def apply(self, event: SessionEvent) -> Change:
        with self.lock:
            return self._apply(event)

    def note(self, text: str) -> None:
        """Add a line of the surface's own (the run was interrupted)."""
        with self.lock:
            self.blocks.append(_Note(text))

    def _apply(self, event: SessionEvent) -> Change:
        if isinstance(event, MessageUpdate):
            update = event.assistant_message_event
            if isinstance(update, TextDeltaEvent):
                return self._text(update.delta)
            if isinstance(update, TextStartEvent):
                return self._close_text()
            return None
        if isinstance(event, ToolExecutionStart):
            self._close_text()
            tool = self._tools[event.tool_call_id] = _Tool(event.tool_name, event.args)
            self.blocks.append(tool)
            return "structure"
        if isinstance(event, ToolExecutionEnd):
            return self._tool_end(event)
        if isinstance(event, MessageEnd) and isinstance(event.message, AssistantMessage):
            return self._assistant_end(event.message)
        return None

    def _text(self, delta: str) -> Change:
        last = self.blocks[-1] if self.blocks else None
        if isinstance(last, _Text) and last.open:
            last.chunks.append(delta)
            last.version += 1
            return "delta"
        self.blocks.append(_Text([delta], 1))
        return "structure"

    def _close_text(self) -> Change:
        last = self.blocks[-1] if self.blocks else None
        if isinstance(last, _Text):
            last.open = False
        return None

    def _tool_end(self, event: ToolExecutionEnd) -> Change:
        tool = self._tools.get(event.tool_call_id)
        if tool is None:
            return None
        tool.status = "error" if event.is_error else "ok"
        tool.result = "\n".join(part.text for part in event.result.content if part.type == "text")
        tool.outputs = _rich_outputs(event.result.details)
        tool.version += 1
        return "structure"

    def _assistant_end(self, message: AssistantMessage) -> Change:
        self._close_text()
        if message.stop_reason == "aborted":
            self.blocks.append(_Note("Aborted."))
        elif message.stop_reason == "error":
            self.blocks.append(_Note(f"Error: {message.error_message or 'the run failed'}"))
        else:
            return None
        return "structure"


def _rich_outputs(details: JsonValue) -> list[Bundle]:
    """The display bundles among an `ipython` result's nbformat outputs (a figure, an HTML table)."""
    outputs = details.get("outputs") if isinstance(details, dict) else None
    bundles: list[Bundle] = []
    for output in outputs if isinstance(outputs, list) else []:
        if isinstance(output, dict) and output.get("output_type") in ("display_data", "execute_result"):
            data = output.get("data")
            if isinstance(data, dict):
                bundles.append({k: v for k, v in data.items() if isinstance(v, str)})
    return bundles


class Handle(Protocol):
    def update(self, bundle: Bundle) -> None: ...


class Publisher(Protocol):
    """Puts a display into the cell's output (IPython's `display`, wrapped: it is untyped)."""

    def display(self, bundle: Bundle) -> Handle: ...


class CellDisplay:
    """Draws a `CellFold` on the shell's thread: one display per block, updated when its version moved.

    `in_kernel`: the `ipython` tool runs in this kernel, so its outputs are already in the cell and
    only the block is drawn; otherwise the result and its rich outputs are shown here.
    """

    def __init__(self, fold: CellFold, publisher: Publisher, *, in_kernel: bool) -> None:
        self._fold, self._publisher, self._in_kernel = fold, publisher, in_kernel
        self._handles: list[tuple[Handle, int]] = []
        self._extras: set[int] = set()
        self.updates = 0

    def refresh(self) -> None:
        with self._fold.lock:
            blocks = [(block.version, self._bundle(block), block) for block in self._fold.blocks]
        for index, (version, bundle, block) in enumerate(blocks):
            if index == len(self._handles):
                self._handles.append((self._publisher.display(bundle), version))
            elif self._handles[index][1] != version:
                self._handles[index][0].update(bundle)
                self._handles[index] = (self._handles[index][0], version)
                self.updates += 1
            if isinstance(block, _Tool) and block.outputs and not self._in_kernel and index not in self._extras:
                self._extras.add(index)
                for extra in block.outputs:
                    self._publisher.display(extra)

    def _bundle(self, block: _Block) -> Bundle:
        return block.bundle(not self._in_kernel) if isinstance(block, _Tool) else block.bundle()


class Throttle:
    """On the agent's loop: asks for a redraw at once for structure, at most every 0.1 s for deltas."""

    def __init__(self, post: Callable[[], None], interval_s: float = _UPDATE_INTERVAL_S) -> None:
        self._post, self._interval = post, interval_s
        self._last = 0.0
        self._timer: asyncio.TimerHandle | None = None

    def changed(self, change: Change) -> None:
        if change is None:
            return
        wait = self._last + self._interval - time.monotonic()
        if change == "structure" or wait <= 0:
            self._fire()
        elif self._timer is None:
            self._timer = asyncio.get_running_loop().call_later(wait, self._fire)

    def _fire(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        self._last = time.monotonic()
        self._post()
