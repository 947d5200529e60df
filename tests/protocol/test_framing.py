"""NDJSON and SSE framing: split on "\\n" only, so U+2028/U+2029 inside strings survive; chunks anywhere."""

from __future__ import annotations

from prime_jupyter.protocol.frames import QueueFrame, TextDeltaFrame, parse_frame
from prime_jupyter.protocol.framing import SSE_HEARTBEAT, NdjsonDecoder, SseDecoder, encode_ndjson, encode_sse

TRICKY = TextDeltaFrame(message_id="m", index=0, delta="line\u2028sep\u2029para\r\nnew é 😀")


def test_json_is_written_without_ascii_escapes() -> None:
    assert "\u2028".encode() in encode_ndjson(TRICKY)


def test_u2028_inside_a_string_does_not_split_an_ndjson_line() -> None:
    decoder = NdjsonDecoder()
    lines = decoder.feed(encode_ndjson(TRICKY) + encode_ndjson(QueueFrame()))
    assert [parse_frame(line) for line in lines] == [TRICKY, QueueFrame()]


def test_ndjson_lines_come_out_whole_whatever_the_chunking() -> None:
    data = encode_ndjson(TRICKY) * 3
    decoder = NdjsonDecoder()
    lines = [line for i in range(len(data)) for line in decoder.feed(data[i : i + 1])]
    assert [parse_frame(line) for line in lines] == [TRICKY] * 3


def test_blank_lines_and_crlf_are_tolerated() -> None:
    decoder = NdjsonDecoder()
    assert decoder.feed(b'{"a":1}\r\n\n{"b":2}\n') == ['{"a":1}', '{"b":2}']


def test_close_returns_a_last_line_without_newline() -> None:
    decoder = NdjsonDecoder()
    assert decoder.feed(b'{"a":1}\n{"b"') == ['{"a":1}'] and decoder.feed(b":2}") == []
    assert decoder.close() == ['{"b":2}'] and decoder.close() == []


def test_sse_messages_carry_their_sequence_as_id() -> None:
    assert encode_sse(QueueFrame(), 7).startswith(b"id: 7\ndata: {")
    assert encode_sse(QueueFrame()).startswith(b"data: {")


def test_sse_decoder_skips_heartbeats_and_tracks_the_last_id() -> None:
    decoder = SseDecoder()
    stream = encode_sse(TRICKY, 1) + SSE_HEARTBEAT + encode_sse(QueueFrame()) + encode_sse(QueueFrame(), 2)
    messages = [m for i in range(0, len(stream), 5) for m in decoder.feed(stream[i : i + 5])]
    assert [m.id for m in messages] == ["1", None, "2"] and decoder.last_event_id == "2"
    assert parse_frame(messages[0].data) == TRICKY


def test_sse_joins_repeated_data_lines_and_reads_event_names() -> None:
    decoder = SseDecoder()
    (message,) = decoder.feed(b"event: ping\r\ndata: a\r\ndata:b\r\n\r\n")
    assert (message.event, message.data) == ("ping", "a\nb")


def test_sse_ignores_an_empty_message() -> None:
    assert SseDecoder().feed(b"id: 3\n\n") == []
