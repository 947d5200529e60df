"""The kernel-side helpers, used through the ipython tool on one shared kernel."""

from __future__ import annotations

import base64
from pathlib import Path

import pytest
from kit.images import png
from kit.kernels import status_of, text_of, tool_runner

from prime_jupyter.ai.types import ImageContent
from prime_jupyter.kernel.helpers import DIFF_MIME
from prime_jupyter.kernel.provisioner import IpythonKernelProvisioner

pytestmark = pytest.mark.asyncio(loop_scope="module")


async def test_edit_replaces_the_unique_string_and_shows_a_diff_card(
    shared: IpythonKernelProvisioner, tmp_path: Path
) -> None:
    target = tmp_path / "a.py"
    target.write_text("x = 1\ny = 2\nz = 3\n")
    result = await tool_runner(shared)(f"edit({str(target)!r}, 'y = 2', 'y = 20')")
    assert target.read_text() == "x = 1\ny = 20\nz = 3\n"
    card = result.details["outputs"][0]["data"][DIFF_MIME]  # type: ignore[index]
    assert card["path"] == str(target) and card["firstChangedLine"] == 2 and "-y = 2\n+y = 20\n" in card["diff"]
    assert "+y = 20" in text_of(result)


async def test_edit_refuses_a_string_that_is_not_unique(shared: IpythonKernelProvisioner, tmp_path: Path) -> None:
    target = tmp_path / "b.txt"
    target.write_text("a\na\n")
    result = await tool_runner(shared)(f"edit({str(target)!r}, 'a', 'b')")
    assert status_of(result) == "error" and "occurs 2 times" in text_of(result)
    assert target.read_text() == "a\na\n"


async def test_edit_refuses_a_missing_string(shared: IpythonKernelProvisioner, tmp_path: Path) -> None:
    target = tmp_path / "c.txt"
    target.write_text("a\n")
    assert "was not found" in text_of(await tool_runner(shared)(f"edit({str(target)!r}, 'zzz', 'b')"))


async def test_edit_with_an_empty_old_str_creates_a_file(shared: IpythonKernelProvisioner, tmp_path: Path) -> None:
    target = tmp_path / "new" / "d.txt"
    await tool_runner(shared)(f"edit({str(target)!r}, '', 'hello\\n')")
    assert target.read_text() == "hello\n"


async def test_edit_keeps_crlf_line_endings(shared: IpythonKernelProvisioner, tmp_path: Path) -> None:
    target = tmp_path / "e.txt"
    target.write_bytes(b"one\r\ntwo\r\n")
    await tool_runner(shared)(f"edit({str(target)!r}, 'one\\ntwo', 'one\\n2')")
    assert target.read_bytes() == b"one\r\n2\r\n"


async def test_attach_image_shows_the_model_a_png_file(shared: IpythonKernelProvisioner, tmp_path: Path) -> None:
    target = tmp_path / "pic.png"
    target.write_bytes(png(4, 3, "red"))
    result = await tool_runner(shared)(f"attach_image({str(target)!r})")
    image = result.content[1]
    assert isinstance(image, ImageContent) and base64.b64decode(image.data) == target.read_bytes()
    assert "4x3" in text_of(result)


async def test_attach_image_refuses_what_is_not_an_image(shared: IpythonKernelProvisioner, tmp_path: Path) -> None:
    target = tmp_path / "notes.txt"
    target.write_text("hello")
    result = await tool_runner(shared)(f"attach_image({str(target)!r})")
    assert status_of(result) == "error" and "not a PNG or JPEG image" in text_of(result)


async def test_bash_cells_stream_output_and_report_a_failing_exit(shared: IpythonKernelProvisioner) -> None:
    result = await tool_runner(shared)("%%bash\necho out\necho err >&2\nexit 3")
    assert text_of(result) == "out\n[stderr]\nerr\nbash exited with status 3"
    assert status_of(result) == "error"


async def test_bash_cells_that_succeed_are_ok(shared: IpythonKernelProvisioner) -> None:
    result = await tool_runner(shared)("%%bash\nfor i in 1 2 3; do echo $i; done")
    assert (text_of(result), status_of(result)) == ("1\n2\n3", "ok")


async def test_bash_cells_follow_the_kernels_cwd_and_environment(
    shared: IpythonKernelProvisioner, tmp_path: Path
) -> None:
    run = tool_runner(shared)
    await run(f"import os\nold = os.getcwd()\n%cd {tmp_path}\nos.environ['PRIME_T'] = 'v'")
    result = await run("%%bash\npwd\necho $PRIME_T")
    await run("%cd {old}")
    assert text_of(result) == f"{tmp_path}\nv"
