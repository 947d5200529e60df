"""The edit tool on real files: exact unique matches, all-or-nothing batches, diffs, and file form kept."""

# Files are checked with plain blocking calls on purpose: tests are the only thing running.

from __future__ import annotations

import stat
from pathlib import Path

import pytest

from prime_jupyter.agent.tool import AgentToolResult
from prime_jupyter.ai.abort import AbortController
from prime_jupyter.ai.types import TextContent
from prime_jupyter.errors import ToolError
from prime_jupyter.tools.edit import make_edit_tool

SOURCE = "def f():\n    return 1\n\n\ndef g():\n    return 2\n"


async def edit(cwd: Path, path: str, *pairs: tuple[str, str]) -> AgentToolResult:
    tool = make_edit_tool(str(cwd))
    args = {"path": path, "edits": [{"oldText": old, "newText": new} for old, new in pairs]}
    return await tool.execute("call-1", tool.parameters.model_validate(args), AbortController().signal, print)


def text_of(result: AgentToolResult) -> str:
    block = result.content[0]
    assert isinstance(block, TextContent)
    return block.text


@pytest.fixture
def source(tmp_path: Path) -> Path:
    path = tmp_path / "mod.py"
    path.write_text(SOURCE)
    return path


@pytest.mark.asyncio
async def test_replaces_the_unique_match(source: Path) -> None:
    await edit(source.parent, "mod.py", ("return 2", "return 3"))
    assert source.read_text() == SOURCE.replace("return 2", "return 3")


@pytest.mark.asyncio
async def test_result_is_a_unified_diff_with_first_changed_line(source: Path) -> None:
    result = await edit(source.parent, "mod.py", ("return 2", "return 3"))
    diff = text_of(result)
    assert diff.startswith("--- a/mod.py\n+++ b/mod.py\n@@ ")
    assert "\n-    return 2\n+    return 3" in diff
    assert result.details == {"diff": diff, "firstChangedLine": 6}


@pytest.mark.asyncio
async def test_several_edits_apply_against_the_original(source: Path) -> None:
    # The second oldText only exists before the first edit runs: edits see the original file.
    await edit(source.parent, "mod.py", ("return 1", "return 2"), ("return 2", "return 4"))
    assert source.read_text() == "def f():\n    return 2\n\n\ndef g():\n    return 4\n"


@pytest.mark.asyncio
async def test_one_failing_edit_leaves_the_file_untouched(source: Path) -> None:
    with pytest.raises(ToolError, match=r"edits\[1\]\.oldText was not found in mod.py"):
        await edit(source.parent, "mod.py", ("return 1", "return 10"), ("return 99", "x"))
    assert source.read_text() == SOURCE


@pytest.mark.asyncio
async def test_ambiguous_match_says_how_many(source: Path) -> None:
    with pytest.raises(ToolError, match=r"edits\[0\]\.oldText occurs 2 times in mod.py"):
        await edit(source.parent, "mod.py", ("    return", "    yield"))


@pytest.mark.asyncio
async def test_overlapping_occurrences_count_as_ambiguous(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("aaa\n")
    with pytest.raises(ToolError, match="occurs 2 times"):
        await edit(tmp_path, "a.txt", ("aa", "b"))


@pytest.mark.asyncio
async def test_overlapping_edits_are_refused(source: Path) -> None:
    with pytest.raises(ToolError, match=r"edits\[0\] and edits\[1\] overlap"):
        await edit(source.parent, "mod.py", ("def f():\n    return 1", "x"), ("return 1\n\n", "y"))
    assert source.read_text() == SOURCE


@pytest.mark.asyncio
async def test_empty_old_text_is_refused(source: Path) -> None:
    with pytest.raises(ToolError, match=r"edits\[0\]\.oldText is empty"):
        await edit(source.parent, "mod.py", ("", "import os\n"))


@pytest.mark.asyncio
async def test_identical_old_and_new_text_is_refused(source: Path) -> None:
    with pytest.raises(ToolError, match="identical"):
        await edit(source.parent, "mod.py", ("return 1", "return 1"))


@pytest.mark.asyncio
async def test_crlf_file_matches_lf_text_and_stays_crlf(tmp_path: Path) -> None:
    path = tmp_path / "win.txt"
    path.write_bytes(b"one\r\ntwo\r\nthree\r\n")
    await edit(tmp_path, "win.txt", ("one\ntwo", "uno\ndos\nextra"))
    assert path.read_bytes() == b"uno\r\ndos\r\nextra\r\nthree\r\n"


@pytest.mark.asyncio
async def test_utf8_bom_is_kept(tmp_path: Path) -> None:
    path = tmp_path / "bom.txt"
    path.write_bytes(b"\xef\xbb\xbfhello\n")
    await edit(tmp_path, "bom.txt", ("hello", "bye"))
    assert path.read_bytes() == b"\xef\xbb\xbfbye\n"


@pytest.mark.asyncio
async def test_bytes_that_are_not_utf8_pass_through(tmp_path: Path) -> None:
    path = tmp_path / "latin.txt"
    path.write_bytes(b"caf\xe9\nname = 1\n")
    await edit(tmp_path, "latin.txt", ("name = 1", "name = 2"))
    assert path.read_bytes() == b"caf\xe9\nname = 2\n"


@pytest.mark.asyncio
async def test_file_mode_is_kept(source: Path) -> None:
    source.chmod(0o700)
    await edit(source.parent, "mod.py", ("return 1", "return 5"))
    assert stat.S_IMODE(source.stat().st_mode) == 0o700


@pytest.mark.asyncio
async def test_missing_file_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(ToolError, match=r"File not found: gone\.py"):
        await edit(tmp_path, "gone.py", ("a", "b"))


@pytest.mark.asyncio
async def test_directory_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(ToolError, match="is a directory"):
        await edit(tmp_path, ".", ("a", "b"))


@pytest.mark.asyncio
async def test_binary_file_is_an_error(tmp_path: Path) -> None:
    (tmp_path / "blob").write_bytes(b"ab\x00cd")
    with pytest.raises(ToolError, match="binary"):
        await edit(tmp_path, "blob", ("ab", "xy"))


def test_wire_names_are_camel_case_and_snake_case_is_accepted() -> None:
    params = make_edit_tool(".").parameters
    schema = str(params.model_json_schema())
    parsed = params.model_validate({"path": "p", "edits": [{"old_text": "a", "new_text": "b"}]})
    assert ("oldText" in schema, "old_text" in schema, parsed.edits[0].old_text) == (True, False, "a")


def test_edits_must_not_be_empty() -> None:
    with pytest.raises(ValueError, match="at least 1 item"):
        make_edit_tool(".").parameters.model_validate({"path": "p", "edits": []})


@pytest.mark.asyncio
async def test_whitespace_only_mismatch_is_pointed_out(source: Path) -> None:
    with pytest.raises(ToolError, match="has this text with different whitespace"):
        await edit(source.parent, "mod.py", ("def g():\n  return 2", "def g():\n  return 3"))
