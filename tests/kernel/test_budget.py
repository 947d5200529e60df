from __future__ import annotations

from prime_jupyter.ai.types import TextContent
from prime_jupyter.kernel.budget import cap_text, clean_text, details_outputs, model_content
from prime_jupyter.kernel.helpers import PREVIEW_KEY


def _text(outputs: list[dict[str, object]], notices: list[str] | None = None, images: bool = True) -> str:
    blocks = model_content(outputs, notices=notices or [], accepts_images=images)
    assert isinstance(blocks[0], TextContent)
    return blocks[0].text


def test_parts_come_in_order_stdout_stderr_result_traceback() -> None:
    text = _text(
        [
            {"output_type": "stream", "name": "stderr", "text": "warn\n"},
            {"output_type": "stream", "name": "stdout", "text": "out\n"},
            {"output_type": "execute_result", "execution_count": 4, "data": {"text/plain": "42"}, "metadata": {}},
            {"output_type": "error", "ename": "E", "evalue": "v", "traceback": ["line 1", "E: v"]},
        ]
    )
    assert text == "out\n[stderr]\nwarn\nOut[4]: 42\nline 1\nE: v"


def test_notices_come_first() -> None:
    assert _text([], ["kernel restarted"]).startswith("<kernel_notice>kernel restarted</kernel_notice>")


def test_no_output_says_so() -> None:
    assert _text([]) == "(no output)"


def test_ansi_codes_are_removed() -> None:
    assert clean_text("\x1b[31mred\x1b[39m \x1b]8;;http://x\x07link\x1b]8;;\x07") == "red link"


def test_progress_bars_keep_their_last_state() -> None:
    assert clean_text("start\n 10%\r 50%\r100%\ndone\r\n") == "start\n100%\ndone\n"


def test_a_long_part_keeps_head_and_tail_with_a_marker() -> None:
    capped = cap_text("a" * 50 + "b" * 50, 20)
    assert capped == "a" * 10 + "\n[... 80 characters omitted ...]\n" + "b" * 10


def test_each_part_is_capped_separately() -> None:
    text = _text(
        [
            {"output_type": "stream", "name": "stdout", "text": "o" * 100_000},
            {"output_type": "stream", "name": "stderr", "text": "e" * 100_000},
        ]
    )
    assert text.count("characters omitted") == 2 and text.count("o") < 65_600 and text.count("e") > 65_000


def test_rich_output_without_text_form_is_summarised() -> None:
    text = _text([{"output_type": "display_data", "data": {"text/html": "<b>x</b>"}, "metadata": {}}])
    assert text == "[text/html output]"


def test_rich_output_uses_its_text_plain_fallback() -> None:
    data = {"text/html": "<table/>", "text/plain": "   a\n0  1"}
    assert _text([{"output_type": "display_data", "data": data, "metadata": {}}]) == "   a\n0  1"


def test_text_only_models_get_a_note_instead_of_the_image() -> None:
    png = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
    outputs = [{"output_type": "display_data", "data": {"image/png": png, "text/plain": "<img>"}, "metadata": {}}]
    blocks = model_content(outputs, notices=[], accepts_images=False)
    assert len(blocks) == 1 and "this model does not take images" in blocks[0].text


def test_details_keep_every_bundle_but_drop_our_preview() -> None:
    output = {"output_type": "display_data", "data": {"image/png": "AAA"}, "metadata": {PREVIEW_KEY: {}, "x": 1}}
    assert details_outputs([output]) == [
        {"output_type": "display_data", "data": {"image/png": "AAA"}, "metadata": {"x": 1}}
    ]
