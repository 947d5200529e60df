"""The user's shell commands (`!cmd`) hand their output over in chunks while they run (issue 16)."""

from __future__ import annotations

from pathlib import Path

import pytest

from prime_jupyter.ai.abort import AbortController
from prime_jupyter.tools.user_command import MAX_CHUNK_BYTES, run_user_command


@pytest.mark.asyncio
async def test_the_chunks_add_up_to_the_whole_output(tmp_path: Path) -> None:
    chunks: list[tuple[str, int]] = []
    command = "for i in 1 2 3; do echo line $i; sleep 0.05; done; printf 'caf\\xc3'; printf '\\xa9\\n'"
    run = await run_user_command(command, str(tmp_path), AbortController().signal, lambda c, s: chunks.append((c, s)))
    assert "".join(c for c, _ in chunks) == "line 1\nline 2\nline 3\ncafé\n" == run.output + "\n"
    assert all(skipped == 0 for _, skipped in chunks) and all(chunk for chunk, _ in chunks)


@pytest.mark.asyncio
async def test_a_flood_comes_in_bounded_chunks_that_count_what_they_left_out(tmp_path: Path) -> None:
    chunks: list[tuple[str, int]] = []
    total = 3_000_000
    command = f"head -c {total} /dev/zero | tr '\\0' x; echo; echo the-end"
    run = await run_user_command(command, str(tmp_path), AbortController().signal, lambda c, s: chunks.append((c, s)))
    assert all(len(chunk) <= MAX_CHUNK_BYTES for chunk, _ in chunks)
    assert sum(len(c) + s for c, s in chunks) == total + len("\nthe-end\n")
    assert any(s > 0 for _, s in chunks) and chunks[-1][0].endswith("x\nthe-end\n")
    assert run.truncated and run.output.endswith("the-end")


@pytest.mark.asyncio
async def test_without_a_listener_nothing_is_chunked(tmp_path: Path) -> None:
    run = await run_user_command("echo quiet", str(tmp_path), AbortController().signal)
    assert run.output == "quiet" and run.exit_code == 0
