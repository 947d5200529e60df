"""The package's one SSE decoder (`prime_jupyter._sse`), which the providers, the connection and the tests'
clients all read event streams with: the HTML spec's line endings and fields, chunks cut anywhere."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest

from prime_jupyter._sse import SseDecoder, SseMessage, iter_sse

STREAM = (
    b": heartbeat\r\n"
    b"event: content_block_delta\r\n"
    b'data: {"text":"h\xc3\xa9\xe2\x80\xa8llo"}\r\n'
    b"\r\n"
    b"id: 7\rdata: a\rdata: b\r\r"
    b"retry: 100\n"
    b"id: 8\x00\n"
    b"event:\n"
    b"data:c\n"
    b"\n"
)
EXPECTED = [
    SseMessage(data='{"text":"hé\u2028llo"}', event="content_block_delta"),
    SseMessage(data="a\nb", id="7"),
    SseMessage(data="c"),
]


@pytest.mark.parametrize("size", [1, 2, 3, 5, 64, len(STREAM)])
def test_messages_come_out_whole_wherever_the_chunks_are_cut(size: int) -> None:
    decoder = SseDecoder()
    messages = [m for start in range(0, len(STREAM), size) for m in decoder.feed(STREAM[start : start + size])]
    assert messages == EXPECTED
    assert decoder.last_event_id == "7"  # an id holding NUL is ignored
    assert decoder.close() == []


def test_a_message_without_data_is_dropped_and_its_id_kept() -> None:
    decoder = SseDecoder()
    assert decoder.feed(b"id: 3\n\n") == [] and decoder.last_event_id == "3"


def test_close_dispatches_a_last_message_whose_blank_line_never_came() -> None:
    decoder = SseDecoder()
    assert decoder.feed(b"data: one\n\ndata: [DONE]") == [SseMessage(data="one")]
    assert decoder.close() == [SseMessage(data="[DONE]")] and decoder.close() == []


def test_iter_sse_reads_an_async_byte_stream_to_its_end() -> None:
    async def chunks() -> AsyncIterator[bytes]:
        for piece in (STREAM[:10], STREAM[10:], b"data: tail\r"):
            yield piece

    async def collect() -> list[SseMessage]:
        return [message async for message in iter_sse(chunks())]

    assert asyncio.run(collect()) == [*EXPECTED, SseMessage(data="tail")]
