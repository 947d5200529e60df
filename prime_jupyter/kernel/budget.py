"""The model's view of a cell: a token-budgeted text block plus images; the front ends get everything.

Text, in this order: notices (a restart, a time limit), the output (stdout and the text form of each
display, in order), `[stderr]`, `Out[n]:` with the `execute_result`, and the traceback. ANSI codes are
removed and carriage-return progress bars collapse to their last state. Each part is capped at
`MAX_PART_CHARS`, keeping head and tail around an explicit marker of what was cut.
"""

from __future__ import annotations

import re

from pydantic import JsonValue

from prime_jupyter.ai.types import ImageContent, TextContent
from prime_jupyter.kernel.helpers import PREVIEW_KEY
from prime_jupyter.kernel.images import model_image
from prime_jupyter.kernel.outputs import Output, omitted_marker

__all__ = ["MAX_IMAGES", "MAX_PART_CHARS", "cap_text", "clean_text", "details_outputs", "model_content"]

MAX_PART_CHARS = 65_536
MAX_IMAGES = 8
_ANSI = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-Z\\-_]")
_TEXT_FORMS = ("text/plain", "text/markdown", "text/latex")


def cap_text(text: str, limit: int = MAX_PART_CHARS) -> str:
    """`text` if it fits, else its head and tail around a marker saying how much was cut."""
    if len(text) <= limit:
        return text
    half = limit // 2
    return text[:half] + omitted_marker(len(text) - 2 * half) + text[-half:]


def clean_text(text: str) -> str:
    """ANSI codes removed; a line rewritten with `\\r` (progress bars) keeps only its last state."""
    text = _ANSI.sub("", text).replace("\r\n", "\n")
    if "\r" not in text:
        return text
    return "\n".join(_last_state(line) for line in text.split("\n"))


def _last_state(line: str) -> str:
    return next((state for state in reversed(line.split("\r")) if state), "")


def _part(text: str, limit: int) -> str:
    return cap_text(clean_text(cap_text(text, 2 * limit)), limit).strip("\n")


def model_content(
    outputs: list[Output], *, notices: list[str], accepts_images: bool, limit: int = MAX_PART_CHARS
) -> list[TextContent | ImageContent]:
    """One text block (always) followed by up to `MAX_IMAGES` image blocks."""
    shown: list[str] = []
    stderr: list[str] = []
    result = traceback = ""
    images = _Images(accepts_images)
    for output in outputs:
        kind = output.get("output_type")
        if kind == "stream":
            (stderr if output.get("name") == "stderr" else shown).append(str(output.get("text", "")))
        elif kind == "error":
            traceback = "\n".join(str(line) for line in _list(output.get("traceback")))
        elif kind in ("display_data", "execute_result"):
            text = images.describe(output)
            if kind == "execute_result":
                result = f"Out[{output.get('execution_count')}]: {text}"
            else:
                shown.append(text + "\n")
    parts = [f"<kernel_notice>{notice}</kernel_notice>" for notice in notices]
    parts += [_part("".join(shown), limit), _part("".join(stderr), limit), _part(result, limit)]
    parts[-2] = f"[stderr]\n{parts[-2]}" if parts[-2] else ""
    parts.append(_part(traceback, limit))
    text = "\n".join(part for part in parts if part) or "(no output)"
    return [TextContent(text=text), *images.blocks]


class _Images:
    """Collects the image blocks of one result while describing each rich output as text."""

    def __init__(self, accepts_images: bool) -> None:
        self.accepts_images = accepts_images
        self.blocks: list[ImageContent] = []
        self.seen = 0

    def describe(self, output: Output) -> str:
        """The output's text form, plus a line for its image if it has one."""
        data, metadata = _dict(output.get("data")), _dict(output.get("metadata"))
        text = next((str(data[m]) for m in _TEXT_FORMS if isinstance(data.get(m), str)), None)
        if text is None:
            text = f"[{', '.join(sorted(data)) or 'empty'} output]"
        image = model_image(data, metadata, number=self.seen + 1, accepts_images=self.accepts_images)
        if image is None:
            return text
        self.seen += 1
        if image.block is not None and len(self.blocks) >= MAX_IMAGES:
            return f"{text}\n[image {self.seen} left out: at most {MAX_IMAGES} images per result]"
        if image.block is not None:
            self.blocks.append(image.block)
        return f"{text}\n{image.note}"


def details_outputs(outputs: list[Output]) -> list[Output]:
    """The outputs as front ends get them: every bundle intact, our preview metadata removed."""
    return [_without_preview(output) for output in outputs]


def _without_preview(output: Output) -> Output:
    metadata = output.get("metadata")
    if not (isinstance(metadata, dict) and PREVIEW_KEY in metadata):
        return output
    return {**output, "metadata": {k: v for k, v in metadata.items() if k != PREVIEW_KEY}}


def _dict(value: JsonValue) -> dict[str, JsonValue]:
    return value if isinstance(value, dict) else {}


def _list(value: JsonValue) -> list[JsonValue]:
    return value if isinstance(value, list) else []
