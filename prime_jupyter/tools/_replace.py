"""Exact-text replacements for the `edit` tool: all of them or none, against the original text.

Every `old` must occur exactly once in the original; replacements must not overlap; they are applied
together, so one edit never sees another's result. Errors name the edit (`edits[i]`) so the model can
fix that one and resend the batch.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

from prime_jupyter.errors import ToolError

__all__ = ["Replacement", "apply_replacements"]

_PREVIEW = 60


@dataclass(frozen=True, slots=True)
class Replacement:
    old: str
    new: str


def apply_replacements(text: str, edits: list[Replacement], given: str) -> str:
    """`text` with every replacement applied, or a `ToolError` naming the first edit that cannot be."""
    spans = [_locate(text, edit, index, given) for index, edit in enumerate(edits)]
    order = sorted(range(len(edits)), key=lambda index: spans[index])
    for before, after in itertools.pairwise(order):
        if spans[after] < spans[before] + len(edits[before].old):
            raise ToolError(
                f"edits[{before}] and edits[{after}] overlap in {given}. Merge them into one edit, "
                "or make each oldText cover a separate region. No edits were applied."
            )
    result = text
    for index in reversed(order):
        start = spans[index]
        result = result[:start] + edits[index].new + result[start + len(edits[index].old) :]
    return result


def _locate(text: str, edit: Replacement, index: int, given: str) -> int:
    """Where `edit.old` starts in `text`, requiring exactly one occurrence."""
    label = f"edits[{index}]"
    if not edit.old:
        raise ToolError(
            f"{label}.oldText is empty. Quote the exact text to replace, including a neighbouring line to "
            "insert next to it; to replace a whole file use write. No edits were applied."
        )
    if edit.old == edit.new:
        raise ToolError(f"{label}: oldText and newText are identical, nothing to change. No edits were applied.")
    first = text.find(edit.old)
    if first < 0:
        raise ToolError(
            f"{label}.oldText was not found in {given} ({_preview(edit.old)}). {_near_miss(text, edit.old)}"
            "No edits were applied."
        )
    count = _count(text, edit.old, first)
    if count > 1:
        raise ToolError(
            f"{label}.oldText occurs {count} times in {given} ({_preview(edit.old)}); it must occur exactly "
            "once. Include more surrounding lines to make it unique. No edits were applied."
        )
    return first


def _count(text: str, needle: str, first: int) -> int:
    """Occurrences of `needle` in `text`, overlapping ones included (`"aa"` is twice in `"aaa"`)."""
    count, at = 0, first
    while at >= 0:
        count += 1
        at = text.find(needle, at + 1)
    return count


def _near_miss(text: str, old: str) -> str:
    """Advice for a failed match; says so when the text is there but its whitespace differs."""
    if " ".join(old.split()) in " ".join(text.split()):
        return (
            "The file has this text with different whitespace (indentation, tabs or line breaks): "
            "copy it exactly as the file has it. "
        )
    return "It must match the file exactly, including whitespace; read the file again and copy the text. "


def _preview(text: str) -> str:
    shown = text if len(text) <= _PREVIEW else text[:_PREVIEW] + "..."
    return repr(shown)
