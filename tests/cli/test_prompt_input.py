"""`@path` attachments: regular files up to `MAX_ATTACHMENT_BYTES`, anything else refused at once.

Regression (issue 27, item 4): `@some-fifo` never returned, `@/dev/zero` read until a MemoryError."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from prime_jupyter.cli.prompt_input import MAX_ATTACHMENT_BYTES, PromptError, assemble_prompt


def test_a_text_file_is_inlined_and_an_image_attached(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_bytes(b"line 1\r\nline 2")
    (tmp_path / "dot.png").write_bytes(b"\x89PNG\r\n\x1a\n")
    prompt = assemble_prompt(["read", "@notes.txt", "@dot.png"], None, tmp_path)
    assert "line 1\nline 2" in prompt.text and [image.mime_type for image in prompt.images] == ["image/png"]


def test_a_fifo_is_refused_at_once(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "pipe")  # no writer: reading it would wait for ever
    with pytest.raises(PromptError, match="not a regular file"):
        assemble_prompt(["@pipe"], None, tmp_path)


@pytest.mark.parametrize("device", ["/dev/zero", "/dev/null"])
def test_a_device_is_refused(tmp_path: Path, device: str) -> None:
    with pytest.raises(PromptError, match="not a regular file"):
        assemble_prompt([f"@{device}"], None, tmp_path)


def test_a_folder_is_refused(tmp_path: Path) -> None:
    with pytest.raises(PromptError, match="a folder, not a regular file"):
        assemble_prompt(["@."], None, tmp_path)


def test_a_file_over_the_limit_is_refused_naming_it(tmp_path: Path) -> None:
    with (tmp_path / "big.txt").open("wb") as big:
        big.truncate(MAX_ATTACHMENT_BYTES + 1)  # sparse: costs no disk
    with pytest.raises(PromptError, match=r"an attachment is at most 5\.0 MiB"):
        assemble_prompt(["@big.txt"], None, tmp_path)
