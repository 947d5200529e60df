"""A notebook as the model reads it: each cell's id, type, execution count, source and outputs, within
a budget (a 500-cell notebook must not flood the context).

Outputs go through the kernel's own output budget (`kernel/budget.py`), capped per cell; images reach a
model that takes images, at most `MAX_IMAGES` per read. Past `MAX_READ_CHARS` the rest of the cells are
listed by id only, so the model can ask for them by id.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from pydantic import JsonValue

from prime_jupyter.ai.types import ImageContent, TextContent
from prime_jupyter.kernel.budget import MAX_IMAGES, cap_text, model_content
from prime_jupyter.notebooks.cells import Cell, cell_source

__all__ = ["MAX_READ_CHARS", "Rendered", "render_cells"]

MAX_READ_CHARS = 60_000
MAX_SOURCE_CHARS = 12_000
MAX_OUTPUT_CHARS = 3_000
_LISTED_IDS = 300


@dataclass
class Rendered:
    text: str
    images: list[ImageContent] = field(default_factory=list)
    shown: list[Cell] = field(default_factory=list)
    """The cells whose source the model was shown (the guard remembers them)."""


def render_cells(cells: Sequence[Cell], *, header: str, accepts_images: bool) -> Rendered:
    ids = [str(cell.get("id")) for cell in cells]
    parts = [header]
    used = len(header)
    rendered = Rendered("")
    for index, cell in enumerate(cells):
        block, images = _cell_block(cell, accepts_images and len(rendered.images) < MAX_IMAGES)
        rest = _rest(ids[index + 1 :])
        if used + len(block) + len(rest) > MAX_READ_CHARS and rendered.shown:
            parts.append(_rest(ids[index:]))
            break
        parts.append(block)
        used += len(block) + 2
        rendered.shown.append(cell)
        rendered.images.extend(images[: MAX_IMAGES - len(rendered.images)])
    rendered.text = "\n\n".join(parts)
    return rendered


def _rest(ids: Sequence[str]) -> str:
    """The line naming the cells left out (empty when none are), so the model can read them by id."""
    if not ids:
        return ""
    listed = ", ".join(ids[:_LISTED_IDS]) + (" ..." if len(ids) > _LISTED_IDS else "")
    return f"[{len(ids)} more cells not shown, to stay within the read budget; read them with cell_ids: {listed}]"


def _cell_block(cell: Cell, accepts_images: bool) -> tuple[str, list[ImageContent]]:
    kind = str(cell.get("cell_type", "code"))
    title = f"### cell {cell.get('id')} · {kind}"
    count = cell.get("execution_count")
    if kind == "code":
        title += f" · [{count if isinstance(count, int) else ' '}]"
    source = cap_text(cell_source(cell), MAX_SOURCE_CHARS)
    lines = [title, f"```{'python' if kind == 'code' else kind}\n{source}\n```"]
    outputs = cell.get("outputs")
    images: list[ImageContent] = []
    if kind == "code" and isinstance(outputs, list) and outputs:
        listed: list[dict[str, JsonValue]] = [o for o in outputs if isinstance(o, dict)]
        content = model_content(listed, notices=[], accepts_images=accepts_images, limit=MAX_OUTPUT_CHARS)
        first = content[0]
        text = first.text if isinstance(first, TextContent) else ""
        lines.append(f"outputs:\n{cap_text(text, 2 * MAX_OUTPUT_CHARS)}")
        images = [block for block in content[1:] if isinstance(block, ImageContent)]
    return "\n".join(lines), images
