"""A `%%prime` cell's output: session events folded into view state, drawn as displays updated in place.

The fold is the one every Python front end uses (`protocol.view.ViewFold`, the panel's fold's twin); this
module only turns its state into blocks. Threads: `CellFold.apply` and `Throttle` run on the agent's loop
(the listener), `CellDisplay` on the shell's thread (display messages belong to the cell being run); the
view state is immutable, so the shell reads whichever state is current.

Each text part of the answer is one Markdown display; its thinking, and each tool call (updated when it
ends), a compact collapsible block; code the `ipython` tool runs in this kernel shows its own outputs
between them.
Updates are throttled (`Throttle`, at most ~10 a second) however fast deltas come; structure (a new
block, a tool that finished) is drawn at once, so a tool's block precedes the outputs of its code.
"""

from __future__ import annotations

import asyncio
import html
import json
import threading
import time
from collections.abc import Callable, Mapping
from typing import Literal, Protocol, TypeAlias

from pydantic import JsonValue

from prime_jupyter.protocol.events import Notify, SessionEvent
from prime_jupyter.protocol.mapper import EventMapper
from prime_jupyter.protocol.view import ErrorView, ReasoningView, TextView, ToolView, ViewFold, ViewState

__all__ = ["Bundle", "CellDisplay", "CellFold", "Publisher", "Throttle"]

Bundle: TypeAlias = dict[str, str]
Change: TypeAlias = Literal["delta", "structure"] | None
_Part: TypeAlias = TextView | ReasoningView | ToolView | ErrorView
_Block: TypeAlias = _Part | str
"""A part of the run's answer, or a line of the surface's own (a `str`)."""
_UPDATE_INTERVAL_S = 0.1
_MARKS = {"input-streaming": "…", "input-available": "…", "output-available": "✓", "output-error": "✗"}


class CellFold:
    """The run's events folded (`ViewFold`), and its answer as blocks in order."""

    def __init__(self) -> None:
        self._fold = ViewFold(EventMapper("notebook"))
        self._notes: list[str] = []
        self._lock = threading.Lock()
        self._shape: tuple[tuple[str, str], ...] = ()

    def apply(self, event: SessionEvent) -> Change:
        """Fold `event`; what changed, for the throttle. A notification (what the run did to the kernel)
        becomes a line under the answer."""
        if isinstance(event, Notify):
            self.note(event.message)
            return "structure"
        before = self._fold.state
        after = self._fold.apply_event(event)
        if after is before:
            return None
        shape = _shape(after)
        changed, self._shape = shape != self._shape, shape
        return "structure" if changed else "delta"

    def note(self, text: str) -> None:
        """Add a line of the surface's own (the run was interrupted)."""
        with self._lock:
            self._notes.append(text)

    def blocks(self) -> list[_Block]:
        with self._lock:
            notes = list(self._notes)
        return [*_parts(self._fold.state), *notes]


def _parts(state: ViewState) -> list[_Part]:
    parts: list[_Part] = []
    for message in state.messages:
        if message.role != "assistant":
            continue
        parts.extend(p for p in message.parts if isinstance(p, TextView | ReasoningView | ToolView | ErrorView))
        if message.stop_reason == "aborted" and not any(isinstance(p, ErrorView) for p in message.parts):
            parts.append(ErrorView("Aborted."))
    return parts


def _shape(state: ViewState) -> tuple[tuple[str, str], ...]:
    """What is drawn at once when it changes: the blocks, and the state of each tool."""
    return tuple((p.type, p.state if isinstance(p, ToolView) else "") for p in _parts(state))


def _text_bundle(text: str) -> Bundle:
    return {"text/markdown": text, "text/plain": text}


def _reasoning_bundle(reasoning: ReasoningView) -> Bundle:
    """The model's thinking, collapsed."""
    text = "(redacted)" if reasoning.redacted else reasoning.text
    summary = "<details><summary><i>Thinking</i></summary>"
    return {"text/html": f"{summary}<pre>{html.escape(text)}</pre></details>", "text/plain": f"[thinking] {text}"}


def _tool_bundle(tool: ToolView, show_result: bool) -> Bundle:
    mark = _MARKS.get(tool.state, "…")
    code = tool.input.get("code")
    if isinstance(code, str):
        body = code
    elif not tool.input and tool.draft is not None:
        body = tool.draft  # the model is still writing the arguments
    else:
        body = json.dumps(dict(tool.input), indent=1, ensure_ascii=False)
    first = body.strip().splitlines()[0][:80] if body.strip() else ""
    failed = tool.state == "output-error"
    result = _result_text(tool) if (show_result or failed) else ""
    parts = [
        f"<details><summary><code>{html.escape(tool.tool_name)}</code> {mark} <code>{html.escape(first)}</code>",
        f"</summary><pre>{html.escape(body)}</pre>",
        f"<pre>{html.escape(result)}</pre>" if result else "",
        "</details>",
    ]
    plain = f"[{tool.tool_name} {mark}] {first}" + (f"\n{result}" if result else "")
    return {"text/html": "".join(parts), "text/plain": plain}


def _result_text(tool: ToolView) -> str:
    if tool.output is None:
        return tool.error_text or ""
    return "\n".join(part.text for part in tool.output.content if part.type == "text") or (tool.error_text or "")


def _rich_outputs(tool: ToolView) -> list[Bundle]:
    """The display bundles among an `ipython` result's nbformat outputs (a figure, an HTML table)."""
    details = tool.output.details if tool.output is not None else None
    outputs = details.get("outputs") if isinstance(details, dict) else None
    bundles: list[Bundle] = []
    for output in outputs if isinstance(outputs, list) else []:
        if isinstance(output, dict) and output.get("output_type") in ("display_data", "execute_result"):
            data: JsonValue = output.get("data")
            if isinstance(data, Mapping):
                bundles.append({k: v for k, v in data.items() if isinstance(v, str)})
    return bundles


class Handle(Protocol):
    def update(self, bundle: Bundle) -> None: ...


class Publisher(Protocol):
    """Puts a display into the cell's output (IPython's `display`, wrapped: it is untyped)."""

    def display(self, bundle: Bundle) -> Handle: ...


class CellDisplay:
    """Draws a `CellFold` on the shell's thread: one display per block, updated when its bundle changed.

    `in_kernel`: the `ipython` tool runs in this kernel, so its outputs are already in the cell and
    only the block is drawn; otherwise the result and its rich outputs are shown here.
    """

    def __init__(self, fold: CellFold, publisher: Publisher, *, in_kernel: bool) -> None:
        self._fold, self._publisher, self._in_kernel = fold, publisher, in_kernel
        self._shown: list[tuple[Handle, Bundle]] = []
        self._extras: set[int] = set()

    def refresh(self) -> None:
        for index, block in enumerate(self._fold.blocks()):
            bundle = self._bundle(block)
            if index == len(self._shown):
                self._shown.append((self._publisher.display(bundle), bundle))
            elif self._shown[index][1] != bundle:
                self._shown[index][0].update(bundle)
                self._shown[index] = (self._shown[index][0], bundle)
            if isinstance(block, ToolView) and not self._in_kernel and block.state == "output-available":
                self._show_outputs(index, block)

    def _show_outputs(self, index: int, tool: ToolView) -> None:
        if index not in self._extras:
            self._extras.add(index)
            for extra in _rich_outputs(tool):
                self._publisher.display(extra)

    def _bundle(self, block: _Block) -> Bundle:
        if isinstance(block, str):
            return _text_bundle(f"*{block}*")
        if isinstance(block, TextView):
            return _text_bundle(block.text)
        if isinstance(block, ReasoningView):
            return _reasoning_bundle(block)
        if isinstance(block, ErrorView):
            return _text_bundle(f"*{block.message}*" if block.message == "Aborted." else f"*Error: {block.message}*")
        return _tool_bundle(block, not self._in_kernel)


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
