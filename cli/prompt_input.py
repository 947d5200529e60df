"""Assembling the prompt: positional words, `@file` arguments and piped standard input."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:  # imported where an image is attached: `jupyter prime attach -p` imports no pydantic
    from prime_jupyter.ai.types import ImageContent

__all__ = ["MAX_ATTACHMENT_BYTES", "PromptError", "PromptInput", "assemble_prompt", "read_prompt"]

_IMAGE_TYPES = {"image/png", "image/jpeg", "image/gif", "image/webp"}

MAX_ATTACHMENT_BYTES = 5 * 1024 * 1024
"""The largest file `@path` attaches (5 MiB: the size of the largest image a provider takes, and for text
already more than a model's context holds). A bigger one is an error that says so; the `read` tool reads a
part of any file."""


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
            data = _read_bytes(path)
            image = _image(path, data)
            if image is not None:
                images.append(image)
                files.append(f'<file name="{path}">(image attached)</file>')
            else:
                files.append(f'<file name="{path}">\n{_text(path, data)}\n</file>')
        else:
            texts.append(word)
    parts = [" ".join(texts)] if texts else []
    parts.extend(files)
    if stdin_text and stdin_text.strip():
        parts.append(stdin_text.rstrip("\n"))
    return PromptInput("\n\n".join(parts), images)


def _read_bytes(path: Path) -> bytes:
    """The bytes of a regular file of at most `MAX_ATTACHMENT_BYTES`; anything else is a `PromptError` at
    once. Opened without blocking and checked before reading: a fifo never returned, `/dev/zero` read until
    the memory ran out."""
    import os
    import stat

    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0))
    except FileNotFoundError as exc:
        raise PromptError(f"@{path}: no such file") from exc
    except OSError as exc:
        raise PromptError(f"@{path}: {exc.strerror}") from exc
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            kind = "a folder" if stat.S_ISDIR(info.st_mode) else "a fifo, device or socket"
            raise PromptError(f"@{path}: {kind}, not a regular file; only files can be attached")
        if info.st_size > MAX_ATTACHMENT_BYTES:
            raise PromptError(f"@{path}: {_mib(info.st_size)}; an attachment is at most {_mib(MAX_ATTACHMENT_BYTES)}")
        with os.fdopen(fd, "rb", closefd=False) as handle:
            data = handle.read(MAX_ATTACHMENT_BYTES + 1)
    except OSError as exc:
        raise PromptError(f"@{path}: {exc.strerror}") from exc
    finally:
        os.close(fd)
    if len(data) > MAX_ATTACHMENT_BYTES:  # it grew since the check
        raise PromptError(f"@{path}: more than {_mib(MAX_ATTACHMENT_BYTES)}; an attachment is at most that")
    return data


def _mib(size: int) -> str:
    return f"{size / (1024 * 1024):.1f} MiB"


def _text(path: Path, data: bytes) -> str:
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise PromptError(f"@{path}: not a text or image file") from exc
    return text.replace("\r\n", "\n").replace("\r", "\n")  # as reading in text mode did


def _image(path: Path, data: bytes) -> ImageContent | None:
    import mimetypes

    mime, _ = mimetypes.guess_type(path.name)
    if mime not in _IMAGE_TYPES:
        return None
    import base64

    from prime_jupyter.ai.types import ImageContent

    return ImageContent(data=base64.b64encode(data).decode("ascii"), mime_type=mime)
