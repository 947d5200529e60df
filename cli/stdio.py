"""stdin and stdout as a protocol's streams, for the modes where a client speaks to this process on stdio
(`--mode acp`, `--mode rpc`).

The protocol owns stdout: once the streams are open, the process's file descriptor 1 points at stderr, so
nothing else (a kernel started here, a stray print, a library's warning) can write into the protocol's
stream; the protocol writes to a copy of the real stdout made before.
"""

from __future__ import annotations

import asyncio
import os
import sys

__all__ = ["LINE_LIMIT", "protocol_streams"]

LINE_LIMIT = 50 * 1024 * 1024
"""The longest line read from stdin (an image or two, base64-encoded, inside a prompt)."""


async def protocol_streams() -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    """stdin and the real stdout as asyncio streams; fd 1 then points at stderr (see the module's doc)."""
    loop = asyncio.get_running_loop()
    protocol_out = os.dup(sys.stdout.fileno())
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())
    reader = asyncio.StreamReader(limit=LINE_LIMIT)
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    transport, protocol = await loop.connect_write_pipe(asyncio.streams.FlowControlMixin, os.fdopen(protocol_out, "wb"))
    writer = asyncio.StreamWriter(transport, protocol, None, loop)
    return reader, writer
