"""The ipython tool on one real kernel shared by these tests (none of them breaks it)."""

from __future__ import annotations

import base64

import pytest
from kit.images import PNG_IN_THE_KERNEL
from kit.kernels import status_of, text_of, tool_runner

from prime_jupyter.agent.tool import AgentToolResult
from prime_jupyter.ai.types import ImageContent
from prime_jupyter.kernel.helpers import png_size
from prime_jupyter.kernel.provisioner import IpythonKernelProvisioner

pytestmark = pytest.mark.asyncio(loop_scope="module")

SMALL_IMAGE = PNG_IN_THE_KERNEL + "Image(data=_png(8, 8))"


def _outputs(result: AgentToolResult) -> list[dict[str, object]]:
    assert isinstance(result.details, dict)
    return result.details["outputs"]  # type: ignore[return-value]


async def test_stdout_stderr_and_result_reach_the_model(shared: IpythonKernelProvisioner) -> None:
    result = await tool_runner(shared)("import sys\nprint('out')\nprint('err', file=sys.stderr)\n6 * 7")
    assert text_of(result).endswith("out\n[stderr]\nerr\nOut[" + str(result.details["executionCount"]) + "]: 42")  # type: ignore[index]


async def test_every_output_type_is_kept_in_nbformat_shape(shared: IpythonKernelProvisioner) -> None:
    code = "from IPython.display import display, HTML\nprint('s')\ndisplay(HTML('<b>h</b>'))\n1 + 1"
    result = await tool_runner(shared)(code)
    kinds = [output["output_type"] for output in _outputs(result)]
    assert kinds == ["stream", "display_data", "execute_result"]
    assert status_of(result) == "ok"


async def test_a_traceback_arrives_without_ansi_codes(shared: IpythonKernelProvisioner) -> None:
    result = await tool_runner(shared)("def f():\n    return 1 / 0\nf()")
    assert "ZeroDivisionError: division by zero" in text_of(result) and "\x1b[" not in text_of(result)
    assert status_of(result) == "error" and result.details["isError"] is True  # type: ignore[index]


async def test_the_error_output_keeps_its_ansi_for_the_panel(shared: IpythonKernelProvisioner) -> None:
    result = await tool_runner(shared)("1 / 0")
    error = _outputs(result)[-1]
    assert error["ename"] == "ZeroDivisionError" and "\x1b[" in "".join(error["traceback"])  # type: ignore[arg-type]


async def test_rich_output_without_text_form_is_summarised(shared: IpythonKernelProvisioner) -> None:
    code = "from IPython.display import publish_display_data\npublish_display_data({'text/html': '<i>x</i>'})"
    assert text_of(await tool_runner(shared)(code)) == "[text/html output]"


async def test_clear_output_and_display_updates_show_their_final_state(shared: IpythonKernelProvisioner) -> None:
    code = (
        "from IPython.display import display, clear_output\n"
        "print('gone')\nclear_output()\nh = display('one', display_id=True)\nh.update('two')"
    )
    assert text_of(await tool_runner(shared)(code)) == "'two'"


async def test_a_10_mb_print_is_cut_to_head_and_tail(shared: IpythonKernelProvisioner) -> None:
    result = await tool_runner(shared)("print('<' + 'x' * 10_000_000 + '>')")
    text = text_of(result)
    assert text.startswith("<xxx") and text.endswith("xxx>")
    assert len(text) < 70_000 and "characters omitted" in text
    assert len(_outputs(result)[0]["text"]) < 1_100_000  # type: ignore[arg-type]


async def test_many_small_prints_keep_the_first_and_the_last(shared: IpythonKernelProvisioner) -> None:
    text = text_of(await tool_runner(shared)("for i in range(300_000): print(i)"))
    assert text.startswith("0\n1\n2\n") and text.endswith("299998\n299999")


async def test_streamed_updates_accumulate_while_the_code_runs(shared: IpythonKernelProvisioner) -> None:
    updates: list[AgentToolResult] = []
    code = "import time\nfor i in range(4):\n    print('tick', i, flush=True)\n    time.sleep(0.3)"
    await tool_runner(shared)(code, updates=updates)
    running = [text_of(u) for u in updates if status_of(u) == "running"]
    assert len(running) >= 2 and running[0] != running[-1] and running[-1].startswith(running[0])


async def test_large_images_are_downscaled_for_the_model(shared: IpythonKernelProvisioner) -> None:
    code = PNG_IN_THE_KERNEL + "display(Image(data=_png(3072, 40)))"
    result = await tool_runner(shared)(code)
    image = result.content[1]
    assert isinstance(image, ImageContent)
    assert png_size(base64.b64decode(image.data)) == (1568, 20)
    original = _outputs(result)[0]["data"]["image/png"]  # type: ignore[index]
    assert png_size(base64.b64decode(original)) == (3072, 40)  # the panel gets the original


async def test_small_images_are_passed_as_they_are(shared: IpythonKernelProvisioner) -> None:
    result = await tool_runner(shared)(SMALL_IMAGE)
    assert isinstance(result.content[1], ImageContent) and "[image 1: 8x8 image/png, attached]" in text_of(result)


async def test_text_only_models_get_a_note_for_each_image(shared: IpythonKernelProvisioner) -> None:
    result = await tool_runner(shared, accepts_images=False)(SMALL_IMAGE)
    assert len(result.content) == 1 and "not shown: this model does not take images" in text_of(result)


async def test_the_kernel_runs_in_the_session_cwd(shared: IpythonKernelProvisioner) -> None:
    assert shared.cwd in text_of(await tool_runner(shared)("import os\nos.getcwd()"))


async def test_the_helpers_stay_out_of_the_users_variables(shared: IpythonKernelProvisioner) -> None:
    assert "edit" not in text_of(await tool_runner(shared)("%who_ls"))
