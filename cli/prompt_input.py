"""Assembling the prompt: positional words, `@file` arguments and piped standard input."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:  # imported where an image is attached: `jupyter prime attach -p` imports no pydantic
    from prime_jupyter.ai.types import ImageContent

__all__ = ["PromptInput", "assemble_prompt", "read_prompt"]

_IMAGE_TYPES = {"image/png", "image/jpeg", "image/gif", "image/webp"}


class PromptInput(NamedTuple):
    """The prompt (a `NamedTuple`: importing `dataclasses` was 5 ms of `jupyter prime attach -p`)."""

    text: str
    images: list[ImageContent]


class PromptError(Exception):
    """An @file argument that cannot be read; the message says which and why."""


def read_prompt(words: list[str], example: str) -> PromptInput | None:
    """The prompt from the words, `@file`s and piped stdin; None (after saying why on stderr) when there is
    none or a file cannot be read. `example` is a command line that shows how to give one."""
    import os
    import sys

    stdin_text = None if sys.stdin is None or sys.stdin.isatty() else sys.stdin.read()
    try:
        prompt = assemble_prompt(words, stdin_text, Path(os.getcwd()))
    except PromptError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return None
    if not prompt.text.strip():
        print(f"error: give a prompt, e.g. {example}", file=sys.stderr)
        return None
    return prompt


def assemble_prompt(words: list[str], stdin_text: str | None, cwd: Path) -> PromptInput:
    texts: list[str] = []
    files: list[str] = []
    images: list[ImageContent] = []
    for word in words:
        if word.startswith("@") and len(word) > 1:
            path = (cwd / word[1:]).expanduser()
            image = _image(path)
            if image is not None:
                images.append(image)
                files.append(f'<file name="{path}">(image attached)</file>')
            else:
                files.append(f'<file name="{path}">\n{_read(path)}\n</file>')
        else:
            texts.append(word)
    parts = [" ".join(texts)] if texts else []
    parts.extend(files)
    if stdin_text and stdin_text.strip():
        parts.append(stdin_text.rstrip("\n"))
    return PromptInput("\n\n".join(parts), images)


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError as exc:
        raise PromptError(f"@{path}: no such file") from exc
    except UnicodeDecodeError as exc:
        raise PromptError(f"@{path}: not a text or image file") from exc
    except OSError as exc:
        raise PromptError(f"@{path}: {exc.strerror}") from exc


def _image(path: Path) -> ImageContent | None:
    import mimetypes

    mime, _ = mimetypes.guess_type(path.name)
    if mime not in _IMAGE_TYPES or not path.is_file():
        return None
    import base64

    from prime_jupyter.ai.types import ImageContent

    return ImageContent(data=base64.b64encode(path.read_bytes()).decode("ascii"), mime_type=mime)
