"""The write tool on real files: creation, replacement, modes, symlinks and refusals."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from prime_jupyter.agent.tool import AgentToolResult
from prime_jupyter.ai.abort import AbortController, AbortedError
from prime_jupyter.ai.types import TextContent
from prime_jupyter.errors import ToolError
from prime_jupyter.tools.write import make_write_tool


async def write(cwd: Path, path: str, content: str) -> AgentToolResult:
    tool = make_write_tool(str(cwd))
    params = tool.parameters.model_validate({"path": path, "content": content})
    return await tool.execute("call-1", params, AbortController().signal, lambda _: None)


def text_of(result: AgentToolResult) -> str:
    block = result.content[0]
    assert isinstance(block, TextContent)
    return block.text


@pytest.mark.asyncio
async def test_creates_the_file_and_its_parent_directories(tmp_path: Path) -> None:
    await write(tmp_path, "deep/er/new.txt", "hello\n")
    assert (tmp_path / "deep/er/new.txt").read_text() == "hello\n"


@pytest.mark.asyncio
async def test_result_counts_utf8_bytes(tmp_path: Path) -> None:
    result = await write(tmp_path, "u.txt", "héllo")
    assert (text_of(result), result.details) == (
        "Created u.txt: wrote 6 bytes.",
        {"path": str(tmp_path / "u.txt"), "bytes": 6, "created": True},
    )


@pytest.mark.asyncio
async def test_replaces_an_existing_file_whole(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("a long old content\n")
    result = await write(tmp_path, "a.txt", "new")
    assert ((tmp_path / "a.txt").read_text(), text_of(result)) == ("new", "Overwrote a.txt: wrote 3 bytes.")


@pytest.mark.asyncio
async def test_existing_file_keeps_its_mode(tmp_path: Path) -> None:
    script = tmp_path / "run.sh"
    script.write_text("#!/bin/sh\n")
    script.chmod(0o751)
    await write(tmp_path, "run.sh", "#!/bin/sh\necho hi\n")
    assert stat.S_IMODE(script.stat().st_mode) == 0o751


@pytest.mark.asyncio
async def test_no_temporary_files_are_left_behind(tmp_path: Path) -> None:
    await write(tmp_path, "a.txt", "one")
    await write(tmp_path, "a.txt", "two")
    assert os.listdir(tmp_path) == ["a.txt"]


@pytest.mark.asyncio
async def test_symlink_stays_a_link_and_its_target_changes(tmp_path: Path) -> None:
    (tmp_path / "real.txt").write_text("old")
    (tmp_path / "link.txt").symlink_to("real.txt")
    await write(tmp_path, "link.txt", "new")
    assert ((tmp_path / "link.txt").is_symlink(), (tmp_path / "real.txt").read_text()) == (True, "new")


@pytest.mark.asyncio
async def test_absolute_path_ignores_cwd(tmp_path: Path) -> None:
    await write(tmp_path / "cwd", str(tmp_path / "abs.txt"), "x")
    assert (tmp_path / "abs.txt").read_text() == "x"


@pytest.mark.asyncio
async def test_directory_path_is_refused(tmp_path: Path) -> None:
    (tmp_path / "src").mkdir()
    with pytest.raises(ToolError, match=r"src .*is a directory"):
        await write(tmp_path, "src", "x")


@pytest.mark.asyncio
async def test_parent_that_is_a_file_is_refused(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("x")
    with pytest.raises(ToolError, match=r"file/child\.txt"):
        await write(tmp_path, "file/child.txt", "x")


@pytest.mark.asyncio
async def test_empty_path_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ToolError, match="path is empty"):
        await write(tmp_path, " ", "x")


@pytest.mark.asyncio
@pytest.mark.skipif(os.geteuid() == 0, reason="root writes anywhere")
async def test_read_only_directory_says_permission_denied(tmp_path: Path) -> None:
    (tmp_path / "ro").mkdir()
    (tmp_path / "ro").chmod(0o555)
    with pytest.raises(ToolError, match="Permission denied"):
        await write(tmp_path, "ro/new.txt", "x")


@pytest.mark.asyncio
async def test_aborted_signal_writes_nothing(tmp_path: Path) -> None:
    controller = AbortController()
    controller.abort()
    tool = make_write_tool(str(tmp_path))
    params = tool.parameters.model_validate({"path": "a.txt", "content": "x"})
    with pytest.raises(AbortedError):
        await tool.execute("call-1", params, controller.signal, lambda _: None)
    assert not (tmp_path / "a.txt").exists()
