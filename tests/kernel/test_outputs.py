from __future__ import annotations

from prime_jupyter.kernel.ops import OutputMessage
from prime_jupyter.kernel.outputs import CappedText, OutputAccumulator


def _fold(*messages: tuple[str, dict[str, object]]) -> list[dict[str, object]]:
    outputs = OutputAccumulator(stream_cap=1000)
    for kind, content in messages:
        outputs.add(OutputMessage(kind, content))
    return outputs.outputs()


def test_consecutive_chunks_of_one_stream_merge_into_one_output() -> None:
    outputs = _fold(("stream", {"name": "stdout", "text": "a"}), ("stream", {"name": "stdout", "text": "b"}))
    assert outputs == [{"output_type": "stream", "name": "stdout", "text": "ab"}]


def test_streams_of_different_names_stay_apart_and_in_order() -> None:
    outputs = _fold(
        ("stream", {"name": "stdout", "text": "a"}),
        ("stream", {"name": "stderr", "text": "e"}),
        ("stream", {"name": "stdout", "text": "b"}),
    )
    assert [o["text"] for o in outputs] == ["a", "e", "b"]


def test_rich_outputs_take_the_nbformat_shape() -> None:
    outputs = _fold(
        ("display_data", {"data": {"text/plain": "d"}, "metadata": {}, "transient": {}}),
        ("execute_result", {"data": {"text/plain": "2"}, "metadata": {}, "execution_count": 3}),
        ("error", {"ename": "E", "evalue": "v", "traceback": ["t"]}),
    )
    assert outputs == [
        {"output_type": "display_data", "data": {"text/plain": "d"}, "metadata": {}},
        {"output_type": "execute_result", "execution_count": 3, "data": {"text/plain": "2"}, "metadata": {}},
        {"output_type": "error", "ename": "E", "evalue": "v", "traceback": ["t"]},
    ]


def test_clear_output_clears_at_once() -> None:
    outputs = _fold(("stream", {"name": "stdout", "text": "a"}), ("clear_output", {"wait": False}))
    assert outputs == []


def test_clear_output_with_wait_clears_when_the_next_output_arrives() -> None:
    outputs = _fold(
        ("stream", {"name": "stdout", "text": "a"}),
        ("clear_output", {"wait": True}),
        ("stream", {"name": "stdout", "text": "b"}),
    )
    assert outputs == [{"output_type": "stream", "name": "stdout", "text": "b"}]


def test_update_display_data_rewrites_the_display_with_that_id() -> None:
    outputs = _fold(
        ("display_data", {"data": {"text/plain": "one"}, "metadata": {}, "transient": {"display_id": "x"}}),
        ("update_display_data", {"data": {"text/plain": "two"}, "metadata": {}, "transient": {"display_id": "x"}}),
    )
    assert outputs == [{"output_type": "display_data", "data": {"text/plain": "two"}, "metadata": {}}]


def test_capped_text_keeps_head_and_tail_and_says_how_much_was_cut() -> None:
    text = CappedText(10)
    for chunk in ("abc", "defgh", "ijklmnop", "qrstuvwxyz"):
        text.append(chunk)
    assert text.text() == "abcde\n[... 16 characters omitted ...]\nvwxyz"


def test_capped_text_under_its_cap_is_unchanged() -> None:
    text = CappedText(10)
    text.append("hello")
    assert text.text() == "hello"
