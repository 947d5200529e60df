"""The read tool on real files: windows, limits, hints, images and the errors a model can act on."""

from __future__ import annotations

import base64
import os
from pathlib import Path

import pytest

from prime_jupyter.agent.tool import AgentToolResult
from prime_jupyter.ai.abort import AbortController, AbortedError
from prime_jupyter.ai.types import ImageContent, TextContent
from prime_jupyter.errors import ToolError
from prime_jupyter.tools.read import MAX_IMAGE_BYTES, make_read_tool

PNG = b"\x89PNG\r\n\x1a\n" + b"\x00\x00\x00\rIHDR" + bytes(range(64))


async def read(cwd: Path, **args: object) -> AgentToolResult:
    tool = make_read_tool(str(cwd))
    return await tool.execute("call-1", tool.parameters.model_validate(args), AbortController().signal, lambda _: None)


def text_of(result: AgentToolResult) -> str:
    block = result.content[0]
    assert isinstance(block, TextContent)
    return block.text


def write_lines(path: Path, count: int, width: int = 0) -> None:
    path.write_text("".join(f"{i}".ljust(width, "x") + "\n" for i in range(1, count + 1)))


@pytest.mark.asyncio
async def test_small_file_is_returned_whole(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("one\ntwo\n")
    assert text_of(await read(tmp_path, path="a.txt")) == "one\ntwo"


@pytest.mark.asyncio
async def test_offset_and_limit_select_lines_and_hint_at_the_rest(tmp_path: Path) -> None:
    write_lines(tmp_path / "a.txt", 5)
    result = await read(tmp_path, path="a.txt", offset=2, limit=2)
    assert text_of(result) == "2\n3\n\n[Showing lines 2-3 of 5. Use offset=4 to continue.]"


@pytest.mark.asyncio
async def test_long_file_stops_at_2000_lines_with_exact_continuation_hint(tmp_path: Path) -> None:
    write_lines(tmp_path / "big.txt", 2500)
    text = text_of(await read(tmp_path, path="big.txt"))
    assert text.endswith("1999\n2000\n\n[Showing lines 1-2000 of 2500. Use offset=2001 to continue.]")


@pytest.mark.asyncio
async def test_continuing_at_the_hinted_offset_reads_the_rest(tmp_path: Path) -> None:
    write_lines(tmp_path / "big.txt", 2500)
    text = text_of(await read(tmp_path, path="big.txt", offset=2001))
    assert (text.split("\n")[0], text.split("\n")[-1], text.count("\n")) == ("2001", "2500", 499)


@pytest.mark.asyncio
async def test_byte_budget_stops_at_50kb_on_a_whole_line(tmp_path: Path) -> None:
    write_lines(tmp_path / "wide.txt", 1000, width=99)  # 100 bytes a line: 512 lines fit in 50 KB
    result = await read(tmp_path, path="wide.txt")
    body, hint = text_of(result).split("\n\n")
    assert (len(body.split("\n")), hint) == (
        512,
        "[Showing lines 1-512 of 1000 (50.0KB limit). Use offset=513 to continue.]",
    )


@pytest.mark.asyncio
async def test_single_line_over_50kb_gets_a_clear_message(tmp_path: Path) -> None:
    (tmp_path / "min.js").write_text("short\n" + "x" * 80_000 + "\nafter\n")
    text = text_of(await read(tmp_path, path="min.js", offset=2))
    assert "Line 2 of min.js is 78.1KB" in text and "offset=3 to skip it" in text


@pytest.mark.asyncio
async def test_lines_before_an_over_long_line_are_shown_with_a_hint(tmp_path: Path) -> None:
    (tmp_path / "min.js").write_text("short\n" + "x" * 80_000 + "\nafter\n")
    text = text_of(await read(tmp_path, path="min.js"))
    assert text == "short\n\n[Showing lines 1-1 of 3 (50.0KB limit). Use offset=2 to continue.]"


@pytest.mark.asyncio
async def test_offset_past_the_end_names_the_line_count(tmp_path: Path) -> None:
    write_lines(tmp_path / "a.txt", 3)
    with pytest.raises(ToolError, match=r"offset=10 is beyond the end of a.txt, which has 3 lines"):
        await read(tmp_path, path="a.txt", offset=10)


@pytest.mark.asyncio
async def test_empty_file_says_so(tmp_path: Path) -> None:
    (tmp_path / "empty.txt").write_text("")
    assert text_of(await read(tmp_path, path="empty.txt")) == "[empty.txt is empty]"


@pytest.mark.asyncio
async def test_line_count_covers_a_file_far_larger_than_the_window(tmp_path: Path) -> None:
    write_lines(tmp_path / "huge.txt", 200_000)
    result = await read(tmp_path, path="huge.txt", limit=1)
    assert text_of(result) == "1\n\n[Showing lines 1-1 of 200000. Use offset=2 to continue.]"


@pytest.mark.asyncio
async def test_png_comes_back_as_an_image_block(tmp_path: Path) -> None:
    (tmp_path / "plot.png").write_bytes(PNG)
    result = await read(tmp_path, path="plot.png")
    image = result.content[1]
    assert isinstance(image, ImageContent)
    assert (image.mime_type, base64.b64decode(image.data)) == ("image/png", PNG)


@pytest.mark.asyncio
async def test_image_type_comes_from_magic_bytes_not_the_name(tmp_path: Path) -> None:
    (tmp_path / "photo.dat").write_bytes(b"\xff\xd8\xff\xe0" + bytes(100))
    image = (await read(tmp_path, path="photo.dat")).content[1]
    assert isinstance(image, ImageContent) and image.mime_type == "image/jpeg"


@pytest.mark.asyncio
async def test_image_too_large_for_the_model_is_refused(tmp_path: Path) -> None:
    (tmp_path / "huge.png").write_bytes(PNG + bytes(MAX_IMAGE_BYTES))
    with pytest.raises(ToolError, match="cannot be sent to the model"):
        await read(tmp_path, path="huge.png")


@pytest.mark.asyncio
async def test_binary_file_is_an_error(tmp_path: Path) -> None:
    (tmp_path / "lib.so").write_bytes(b"\x7fELF\x02\x01\x01\x00" + bytes(64))
    with pytest.raises(ToolError, match=r"lib\.so is a binary file"):
        await read(tmp_path, path="lib.so")


@pytest.mark.asyncio
async def test_missing_file_names_where_it_looked(tmp_path: Path) -> None:
    with pytest.raises(ToolError, match=f"File not found: nope.txt \\(resolved to {tmp_path}/nope.txt\\)"):
        await read(tmp_path, path="nope.txt")


@pytest.mark.asyncio
async def test_directory_is_an_error(tmp_path: Path) -> None:
    (tmp_path / "src").mkdir()
    with pytest.raises(ToolError, match="is a directory"):
        await read(tmp_path, path="src")


@pytest.mark.asyncio
async def test_named_pipe_is_refused_without_blocking(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "fifo")
    with pytest.raises(ToolError, match="not a regular file"):
        await read(tmp_path, path="fifo")


@pytest.mark.asyncio
async def test_tilde_expands_to_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    (tmp_path / "notes.txt").write_text("hi\n")
    assert text_of(await read(tmp_path / "elsewhere", path="~/notes.txt")) == "hi"


@pytest.mark.asyncio
@pytest.mark.skipif(os.geteuid() == 0, reason="root reads any file")
async def test_unreadable_file_says_permission_denied(tmp_path: Path) -> None:
    (tmp_path / "secret").write_text("x")
    (tmp_path / "secret").chmod(0)
    with pytest.raises(ToolError, match="Permission denied: secret"):
        await read(tmp_path, path="secret")


@pytest.mark.asyncio
async def test_aborted_signal_stops_the_read(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("x\n")
    controller = AbortController()
    controller.abort()
    tool = make_read_tool(str(tmp_path))
    with pytest.raises(AbortedError):
        await tool.execute("call-1", tool.parameters.model_validate({"path": "a.txt"}), controller.signal, print)


def test_offset_must_be_positive() -> None:
    with pytest.raises(ValueError, match="greater than or equal to 1"):
        make_read_tool(".").parameters.model_validate({"path": "a", "offset": 0})
