"""What a tool card shows, as Rich renderables: pure functions of a tool's arguments and result.

`ipython`: the code highlighted, then its outputs in the order the kernel sent them (stdout, stderr in
red, `text/plain` of results and displays, an `edit()` diff coloured, an image as a placeholder with its
type, size and pixel size, a traceback without colour codes and separator lines). `bash`: the command
and its output. `edit`: its coloured diff; `write`: the content written; `read`: what it read. Any other
tool: its arguments and the text of its result; `notebook_edit`: each changed cell with its lines added and
removed. Long output shows its last lines until expanded.
"""

from __future__ import annotations

import base64
import difflib
import json
import re
import struct
from collections.abc import Sequence
from dataclasses import dataclass

from pydantic import JsonValue
from rich.console import Group, RenderableType
from rich.syntax import Syntax
from rich.text import Text

from prime_jupyter.ai.types import ImageContent, TextContent
from prime_jupyter.protocol.view import ToolView

__all__ = [
    "BITMAP_MIMES",
    "PREVIEW_LINES",
    "CardData",
    "card_data",
    "images_of",
    "preview",
    "render_tool",
    "summary_of",
]

PREVIEW_LINES = 8
"""Lines of output a collapsed card shows (its last ones: errors and results come at the end)."""
_CODE_PREVIEW_LINES = 20
_SUMMARY_LENGTH = 80
DIFF_MIME = "application/vnd.prime.diff+json"
"""The MIME type of the diff the kernel's `edit()` helper displays (`kernel/helpers.py`)."""
BITMAP_MIMES = ("image/png", "image/jpeg", "image/gif", "image/webp")
"""The image types kept as base64 that a card can draw, save and open, best first (SVG is text)."""
_ANSI = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]")
_SEPARATOR = re.compile(r"^-{20,}\s*$")


@dataclass(frozen=True, slots=True)
class CardData:
    """One tool call as a card draws it."""

    name: str
    args: dict[str, JsonValue]
    content: Sequence[TextContent | ImageContent] = ()
    details: JsonValue = None
    status: str = "pending"
    """`pending` (arguments streaming), `running`, `done` or `error`."""


_STATUS = {"input-streaming": "pending", "input-available": "running", "output-available": "done"}


def card_data(tool: ToolView) -> CardData:
    """What a card draws of a tool part of the view state (the call joined with its result so far)."""
    status = _STATUS.get(tool.state, "error")
    output = tool.output
    content: Sequence[TextContent | ImageContent] = tuple(output.content) if output is not None else ()
    if status == "error" and not content and tool.error_text:
        content = (TextContent(text=tool.error_text),)
    args = dict(tool.input)
    if status == "pending" and not args and tool.draft:
        args = {"…": tool.draft}
    return CardData(tool.tool_name, args, content, output.details if output is not None else None, status)


def summary_of(view: CardData) -> str:
    """The card's header line after the tool's name: the first line of its code, command or question
    (while the arguments stream, read from the partial JSON: its first line was `{`)."""
    key = {
        "ipython": "code", "bash": "command", "edit": "path", "write": "path", "read": "path",
        "notebook_read": "path", "notebook_edit": "path", "notebook_run": "path", "ask": "question",
    }.get(view.name)  # fmt: skip
    draft = view.args.get("…")
    if key and isinstance(draft, str) and key not in view.args:
        value: JsonValue = _draft_string(draft, key)
    else:
        value = view.args.get(key) if key else next((v for v in view.args.values() if isinstance(v, str)), None)
    first = value.strip().splitlines()[0] if isinstance(value, str) and value.strip() else ""
    return first if len(first) <= _SUMMARY_LENGTH else first[: _SUMMARY_LENGTH - 1] + "…"


def _draft_string(draft: str, key: str) -> str | None:
    """The string `key` holds so far in streaming JSON arguments (the panel's `partialJsonString`)."""
    match = re.search(rf'"{re.escape(key)}"\s*:\s*"((?:[^"\\]|\\.)*)', draft)
    if match is None:
        return None
    raw = match.group(1)
    for cut in range(min(len(raw), 6) + 1):  # an escape cut short (`\`, `\u00`) is left for later
        try:
            text = json.loads(f'"{raw[: len(raw) - cut]}"')
        except ValueError:
            continue
        return text if isinstance(text, str) else None
    return None


def render_tool(view: CardData, expanded: bool) -> RenderableType:
    """The card's body: input, then output (its last `PREVIEW_LINES` lines unless `expanded`)."""
    parts: list[RenderableType] = []
    if view.name == "ipython":
        code = view.args.get("code")
        lexer = "bash" if isinstance(code, str) and code.startswith("%%bash") else "python"
        if isinstance(code, str) and code:
            parts.append(_code(_after_header(code), lexer, expanded))
        output = _ipython_output(view)
    elif view.name == "bash":
        command = view.args.get("command")
        if isinstance(command, str) and command:
            parts.append(_code(_after_header(command), "bash", expanded))
        output = _plain_output(view)
    elif view.name in ("edit", "write", "read"):
        content = view.args.get("content")
        path = view.args.get("path")
        if view.name == "write" and isinstance(content, str) and content:
            lexer = _lexer(path if isinstance(path, str) else "", content)
            parts.append(_code(content, lexer, expanded, always=True))
        details = view.details if isinstance(view.details, dict) else {}
        diff = details.get("diff")
        output = _diff_text(diff) if isinstance(diff, str) and diff else _plain_output(view)
    elif view.name == "notebook_edit" and _cell_changes(view):
        output = _notebook_changes(view)
    elif view.name in ("notebook_read", "notebook_run"):
        output = _plain_output(view)
    else:
        if view.args:
            arguments = json.dumps(view.args, indent=2, ensure_ascii=False)
            parts.append(preview(Text(arguments, style="dim"), expanded))
        output = _ask_output(view) if view.name == "ask" else _plain_output(view)
    if output.plain.strip():
        parts.append(preview(output, expanded))
    return Group(*parts)


_LEXERS = {
    ".py": "python", ".pyi": "python", ".ipynb": "json", ".json": "json", ".js": "javascript",
    ".ts": "typescript", ".tsx": "tsx", ".md": "markdown", ".sh": "bash", ".toml": "toml", ".yaml": "yaml",
    ".yml": "yaml", ".html": "html", ".css": "css", ".rs": "rust", ".go": "go", ".c": "c", ".h": "c",
    ".cpp": "cpp", ".java": "java", ".sql": "sql", ".r": "r", ".txt": "text", ".csv": "text",
}  # fmt: skip
"""Lexers by file suffix. Pygments' own guess loads and tries every lexer: its first call took 0.5 s, and
the cards of a resumed session made it on the loop before the session showed (`bench_tui.py`)."""


def _lexer(path: str, content: str) -> str:
    suffix = path[path.rfind(".") :].lower() if "." in path.rpartition("/")[2] else ""
    return _LEXERS.get(suffix) or Syntax.guess_lexer(path, content)


def images_of(view: CardData) -> list[tuple[str, bytes]]:
    """The images a tool call produced, in order, as (MIME type, decoded bytes): the rich outputs of an
    `ipython` call, the image blocks of any other tool's result."""
    found: list[tuple[str, str]] = []
    details = view.details if isinstance(view.details, dict) else {}
    outputs = details.get("outputs")
    if view.name == "ipython" and isinstance(outputs, list):
        for output in outputs:
            data = output.get("data") if isinstance(output, dict) else None
            if isinstance(data, dict):
                mime = next((m for m in BITMAP_MIMES if isinstance(data.get(m), str)), None)
                if mime is not None:  # one image per output: a bundle may carry it in several types
                    found.append((mime, str(data[mime])))
    else:
        found = [
            (b.mime_type, b.data) for b in view.content if isinstance(b, ImageContent) and b.mime_type in BITMAP_MIMES
        ]
    decoded = []
    for mime, data in found:
        raw = _decode(data)
        if raw:
            decoded.append((mime, raw))
    return decoded


def _decode(data: str) -> bytes:
    try:
        return base64.b64decode("".join(data.split()), validate=False)
    except ValueError:
        return b""


def _after_header(code: str) -> str:
    """The code a card's body shows: what follows the first line when the header (`summary_of`) shows
    that line whole, so it is not drawn twice; all of it when the header had to cut the line short."""
    lines = code.strip("\n").split("\n")
    if len(lines) < 2 or len(lines[0].strip()) > _SUMMARY_LENGTH:
        return code
    return "\n".join(lines[1:])


def _code(code: str, lexer: str, expanded: bool, always: bool = False) -> RenderableType:
    lines = code.rstrip("\n").split("\n")
    if not always and len(lines) == 1 and len(lines[0]) <= _SUMMARY_LENGTH:
        return Group()  # the header shows all of it
    if not expanded and len(lines) > _CODE_PREVIEW_LINES:
        hidden = len(lines) - _CODE_PREVIEW_LINES
        code = "\n".join(lines[:_CODE_PREVIEW_LINES])
        more = Text(f"… {hidden} more lines of code", style="dim italic")
        return Group(Syntax(code, lexer, theme="ansi_dark", background_color="default", word_wrap=True), more)
    return Syntax(code.rstrip("\n"), lexer, theme="ansi_dark", background_color="default", word_wrap=True)


def preview(output: Text, expanded: bool) -> Text:
    """The last `PREVIEW_LINES` lines of `output` (with a line saying how many are hidden) unless `expanded`."""
    lines = output.split("\n", allow_blank=True)
    while lines and not lines[-1].plain.strip():
        lines.pop()
    if expanded or len(lines) <= PREVIEW_LINES:
        return Text("\n").join(lines)
    hidden = len(lines) - PREVIEW_LINES
    note = Text(f"… {hidden} earlier lines (ctrl+o to expand)", style="dim italic")
    return Text("\n").join([note, *lines[-PREVIEW_LINES:]])


def _plain_output(view: CardData) -> Text:
    style = "red" if view.status == "error" else ""
    texts = [block.text for block in view.content if isinstance(block, TextContent)]
    images = [_image_note(block.mime_type, block.data) for block in view.content if isinstance(block, ImageContent)]
    return Text(_strip_ansi("\n".join(texts + images)), style=style)


def _ask_output(view: CardData) -> Text:
    """The answer; for an unanswered question the note written for the user (`details.note`), not the
    instructions written for the model."""
    note = view.details.get("note") if isinstance(view.details, dict) else None
    return Text(note, style="italic") if isinstance(note, str) else _plain_output(view)


def _ipython_output(view: CardData) -> Text:
    details = view.details if isinstance(view.details, dict) else {}
    outputs = details.get("outputs")
    if not isinstance(outputs, list):
        return _plain_output(view)  # a kernel that failed to start, or a transcript without details
    text = Text()
    for output in outputs:
        if isinstance(output, dict):
            _append_output(text, output)
    return text


def _append_output(text: Text, output: dict[str, JsonValue]) -> None:
    kind = output.get("output_type")
    if kind == "stream":
        body = output.get("text")
        if isinstance(body, str):
            text.append(_strip_ansi(body), style="red" if output.get("name") == "stderr" else "")
    elif kind in ("execute_result", "display_data"):
        data = output.get("data")
        if isinstance(data, dict):
            _append_bundle(text, data, output.get("execution_count"))
    elif kind == "error":
        traceback = output.get("traceback")
        lines = [line for line in traceback if isinstance(line, str)] if isinstance(traceback, list) else []
        if not lines:
            lines = [f"{output.get('ename', 'Error')}: {output.get('evalue', '')}"]
        cleaned = [line for line in _strip_ansi("\n".join(lines)).split("\n") if not _SEPARATOR.match(line)]
        _newline(text)
        text.append("\n".join(cleaned).strip("\n") + "\n", style="red")


def _append_bundle(text: Text, data: dict[str, JsonValue], count: JsonValue) -> None:
    images = [mime for mime in data if mime.startswith("image/")]
    best = next((mime for mime in BITMAP_MIMES if mime in images), None)
    images = [best] if best is not None else images[:1]  # one image, however many types carry it
    plain = data.get("text/plain")
    _newline(text)
    diff = data.get(DIFF_MIME)
    if isinstance(diff, dict) and isinstance(diff.get("diff"), str):  # the kernel's edit(): a coloured diff
        text.append(f"Edited {diff.get('path', '')}\n", style="bold")
        text.append_text(_diff_text(str(diff["diff"])))
        return
    for mime in images:
        value = data[mime]
        text.append(_image_note(mime, value if isinstance(value, str) else "") + "\n", style="cyan")
    if isinstance(plain, str) and not (images and plain.startswith("<Figure")):
        prefix = f"Out[{count}]: " if isinstance(count, int) else ""
        text.append(prefix, style="dim")
        text.append(_strip_ansi(plain) + "\n")


def _cell_changes(view: CardData) -> list[dict[str, JsonValue]]:
    changes = view.details.get("changes") if isinstance(view.details, dict) else None
    return [c for c in changes if isinstance(c, dict)] if isinstance(changes, list) else []


_VERBS = {"insert": "Inserted", "replace": "Replaced", "delete": "Deleted", "move": "Moved"}


def _notebook_changes(view: CardData) -> Text:
    """Each cell a `notebook_edit` changed: what was done to it, then its lines (added green, removed red)."""
    text = Text()
    for change in _cell_changes(view):
        action = str(change.get("action", ""))
        text.append(
            f"{_VERBS.get(action, action)} {change.get('cellType', '')} cell {change.get('cellId', '')}\n", style="bold"
        )
        before, after = change.get("before"), change.get("after")
        if action == "replace" and isinstance(before, str) and isinstance(after, str):
            lines = difflib.unified_diff(before.split("\n"), after.split("\n"), "before", "after", lineterm="", n=2)
            text.append_text(_diff_text("\n".join(lines)))
        elif action in ("insert", "delete"):
            body, sign = (after, "+") if action == "insert" else (before, "-")
            if isinstance(body, str):
                text.append_text(_diff_text("\n".join(f"{sign}{line}" for line in body.split("\n"))))
    return text


def _diff_text(diff: str) -> Text:
    """A unified diff, added lines green, removed ones red, hunk headers cyan."""
    text = Text()
    for line in diff.rstrip("\n").split("\n"):
        style = "cyan" if line.startswith("@@") else "bold" if line.startswith(("+++", "---")) else ""
        if not style:
            style = "green" if line.startswith("+") else "red" if line.startswith("-") else ""
        text.append(line + "\n", style=style)
    return text


def _newline(text: Text) -> None:
    if text.plain and not text.plain.endswith("\n"):
        text.append("\n")


def _image_note(mime: str, data: str) -> str:
    """`[image/png 640x480, 12 KB]`: what a terminal without a graphics protocol shows for an image."""
    try:
        raw = base64.b64decode(data[: 4 * ((len(data) + 3) // 4)], validate=False)
    except ValueError:
        raw = b""
    size = f"{max(1, len(raw) // 1024)} KB" if raw else "empty"
    dims = ""
    if raw[:8] == b"\x89PNG\r\n\x1a\n" and len(raw) >= 24:
        width, height = struct.unpack(">II", raw[16:24])
        dims = f" {width}x{height},"
    return f"[{mime}{dims} {size}]"


def _strip_ansi(text: str) -> str:
    return _ANSI.sub("", text)
