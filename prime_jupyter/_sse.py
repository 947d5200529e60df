"""Server-Sent Events, read incrementally: the package's one decoder (issue 25, "own less").

Every event stream we read goes through it: the models' answers (`ai/providers/`), the Jupyter server's
streams of session events and chat frames (`connection/`, the tests' clients). It follows the HTML
spec's event-stream format: a line ends with LF, CRLF or CR; `data:` lines are joined with LF; `event:`
names the message (`message` when none does); `id:` is remembered (one holding NUL is ignored); lines
starting with `:` (heartbeats) and other fields (`retry:`) are skipped; a blank line dispatches the
message, one without data being dropped. Bytes are split only at CR and LF, which never occur inside a
multi-byte UTF-8 character, and never at U+2028 or U+2029 (style.md rule 11): JSON travels with those raw.

Two liberties, for streams we do not control: `SseMessage.id` is the message's own `id:` (None without
one: our servers send unsequenced frames, and a reader must tell them apart), while `last_event_id` is
the spec's cursor; and `close()` dispatches a last message whose blank line never came (a provider that
ends its body after the final `data:` line).
"""

from __future__ import annotations

from collections.abc import AsyncIterable, AsyncIterator
from dataclasses import dataclass

__all__ = ["SseDecoder", "SseMessage", "iter_sse"]


@dataclass(frozen=True, slots=True)
class SseMessage:
    data: str
    id: str | None = None
    event: str = "message"


class SseDecoder:
    """Feed it chunks as they arrive; it returns the messages each chunk completed."""

    def __init__(self) -> None:
        self._buffer = b""
        self._data: list[str] = []
        self._event: str | None = None
        self._id: str | None = None
        self.last_event_id: str | None = None

    def feed(self, chunk: bytes) -> list[SseMessage]:
        """The messages that `chunk` completed."""
        buffer = self._buffer + chunk
        held = b""
        if b"\r" in buffer:
            if buffer.endswith(b"\r"):  # maybe the first half of a CRLF split across chunks
                buffer, held = buffer[:-1], b"\r"
            buffer = buffer.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
        *lines, rest = buffer.split(b"\n")
        self._buffer = rest + held
        messages = (self._line(line.decode("utf-8", "replace")) for line in lines)
        return [message for message in messages if message is not None]

    def close(self) -> list[SseMessage]:
        """The last message, when the stream ended without the blank line that dispatches it."""
        rest, self._buffer = self._buffer.rstrip(b"\r"), b""
        if rest:
            self._line(rest.decode("utf-8", "replace"))
        message = self._dispatch()
        return [message] if message is not None else []

    def _line(self, line: str) -> SseMessage | None:
        if not line:
            return self._dispatch()
        if line.startswith(":"):
            return None
        name, _, value = line.partition(":")
        value = value.removeprefix(" ")
        if name == "data":
            self._data.append(value)
        elif name == "event":
            self._event = value
        elif name == "id" and "\0" not in value:
            self._id = value
        return None

    def _dispatch(self) -> SseMessage | None:
        data, event, event_id = self._data, self._event, self._id
        self._data, self._event, self._id = [], None, None
        if event_id is not None:
            self.last_event_id = event_id
        if not data:
            return None
        return SseMessage(data="\n".join(data), id=event_id, event=event or "message")


async def iter_sse(chunks: AsyncIterable[bytes]) -> AsyncIterator[SseMessage]:
    """Every message of a byte stream, the last one too when its blank line never came."""
    decoder = SseDecoder()
    async for chunk in chunks:
        for message in decoder.feed(chunk):
            yield message
    for message in decoder.close():
        yield message
