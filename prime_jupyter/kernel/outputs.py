"""Fold an execution's iopub messages into nbformat outputs, the way a notebook's output area does.

Consecutive stream chunks of one name merge, `clear_output` (with `wait`) clears, and
`update_display_data` rewrites earlier outputs that share its `display_id`. Stream text is kept with
bounded memory: past `stream_cap` characters only the head and the tail are kept, with an explicit
marker, so a 10 MB print neither exhausts memory nor floods the transcript.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TypeAlias

from pydantic import JsonValue

from prime_jupyter.kernel.ops import OutputMessage

__all__ = ["DETAILS_STREAM_CAP", "CappedText", "Output", "OutputAccumulator", "omitted_marker"]

Output: TypeAlias = dict[str, JsonValue]
DETAILS_STREAM_CAP = 1_000_000


def omitted_marker(count: int) -> str:
    return f"\n[... {count:,} characters omitted ...]\n"


class CappedText:
    """Append-only text that keeps its first and last `cap // 2` characters once it grows past `cap`."""

    def __init__(self, cap: int) -> None:
        self._half = max(cap // 2, 1)
        self._head = ""
        self._tail = ""
        self._omitted = 0

    def append(self, chunk: str) -> None:
        if len(self._head) < self._half:
            room = self._half - len(self._head)
            self._head += chunk[:room]
            chunk = chunk[room:]
        if not chunk:
            return
        tail = self._tail + chunk
        if len(tail) > self._half:
            self._omitted += len(tail) - self._half
            tail = tail[-self._half :]
        self._tail = tail

    @property
    def omitted(self) -> int:
        return self._omitted

    def text(self) -> str:
        if self._omitted:
            return self._head + omitted_marker(self._omitted) + self._tail
        return self._head + self._tail


@dataclass
class _Stream:
    name: str
    text: CappedText


@dataclass
class _Rich:
    output: Output
    display_id: str | None = None


_Entry: TypeAlias = _Stream | _Rich


@dataclass
class OutputAccumulator:
    """The outputs of one execution so far; `add` is an `OutputSink`."""

    stream_cap: int = DETAILS_STREAM_CAP
    _entries: list[_Entry] = field(default_factory=list)
    _clear_pending: bool = False
    execution_count: int | None = None

    def add(self, message: OutputMessage) -> None:
        kind, content = message.msg_type, message.content
        if kind == "clear_output":
            self._clear(bool(content.get("wait")))
        elif kind == "update_display_data":
            self._update_display(content)
        elif kind == "stream":
            self._flush_clear()
            self._add_stream(str(content.get("name", "stdout")), str(content.get("text", "")))
        elif kind in ("display_data", "execute_result", "error"):
            self._flush_clear()
            self._entries.append(_rich_entry(kind, content))
            if kind == "execute_result" and isinstance(content.get("execution_count"), int):
                self.execution_count = content["execution_count"]  # type: ignore[assignment]

    def outputs(self) -> list[Output]:
        return [_materialise(entry) for entry in self._entries]

    def _add_stream(self, name: str, text: str) -> None:
        last = self._entries[-1] if self._entries else None
        if not (isinstance(last, _Stream) and last.name == name):
            last = _Stream(name, CappedText(self.stream_cap))
            self._entries.append(last)
        last.text.append(text)

    def _clear(self, wait: bool) -> None:
        if wait:
            self._clear_pending = True
        else:
            self._entries.clear()
            self._clear_pending = False

    def _flush_clear(self) -> None:
        if self._clear_pending:
            self._entries.clear()
            self._clear_pending = False

    def _update_display(self, content: dict[str, JsonValue]) -> None:
        display_id = _display_id(content)
        for entry in self._entries:
            if isinstance(entry, _Rich) and display_id and entry.display_id == display_id:
                entry.output["data"] = content.get("data", {})
                entry.output["metadata"] = content.get("metadata", {})


def _display_id(content: dict[str, JsonValue]) -> str | None:
    transient = content.get("transient")
    if isinstance(transient, dict):
        value = transient.get("display_id")
        return value if isinstance(value, str) else None
    return None


def _rich_entry(kind: str, content: dict[str, JsonValue]) -> _Rich:
    output: Output = {"output_type": kind}
    if kind == "error":
        output["ename"] = content.get("ename", "")
        output["evalue"] = content.get("evalue", "")
        output["traceback"] = content.get("traceback", [])
        return _Rich(output)
    if kind == "execute_result":
        output["execution_count"] = content.get("execution_count")
    output["data"] = content.get("data", {})
    output["metadata"] = content.get("metadata", {})
    return _Rich(output, _display_id(content))


def _materialise(entry: _Entry) -> Output:
    if isinstance(entry, _Stream):
        return {"output_type": "stream", "name": entry.name, "text": entry.text.text()}
    return dict(entry.output)
